import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../services/core/index.js';
import { ManualTimers } from '../../test/support/kube-api-server/manual-timers.js';
import { Debouncer } from './debouncer.js';

function setup() {
  const clock = new ManualClock();
  const timers = new ManualTimers(clock);
  const runs: number[] = [];
  const debouncer = new Debouncer(async () => void runs.push(clock.now()), clock, timers, 100, 500);
  return { clock, timers, runs, debouncer, start: clock.now() };
}

describe('Debouncer', () => {
  it('waits for 100 ms of quiet and coalesces a burst into one rebuild', () => {
    const { timers, runs, debouncer, start } = setup();
    debouncer.notify();
    timers.advance(50);
    debouncer.notify();
    timers.advance(99);
    expect(runs).toEqual([]);
    timers.advance(1);
    expect(runs).toEqual([start + 150]);
  });

  it('rebuilds 500 ms after the first change at the latest, even under a steady stream', () => {
    const { timers, runs, debouncer, start } = setup();
    for (let i = 0; i < 12; i++) {
      debouncer.notify();
      timers.advance(50);
    }
    expect(runs).toEqual([start + 500]);
  });

  it('never runs twice at once: a change during a rebuild schedules another', async () => {
    const clock = new ManualClock();
    const timers = new ManualTimers(clock);
    let release: () => void = () => undefined;
    let runs = 0;
    const debouncer = new Debouncer(
      () => {
        runs += 1;
        return new Promise<void>((resolve) => (release = resolve));
      },
      clock,
      timers,
    );
    debouncer.notify();
    timers.advance(100);
    debouncer.notify();
    timers.advance(1_000);
    expect(runs).toBe(1);
    release();
    await new Promise((resolve) => setImmediate(resolve));
    timers.advance(100);
    expect(runs).toBe(2);
  });
});
