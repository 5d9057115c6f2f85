import type { ManualClock } from '../../../services/core/index.js';
import type { Timers } from '../../../operator/runtime/timers.js';

/** Timers on a ManualClock: `advance(ms)` moves the clock and fires what fell due, in order. */
export class ManualTimers implements Timers {
  #next = 0;
  readonly #due = new Map<number, { at: number; fn: () => void }>();

  constructor(private readonly clock: ManualClock) {}

  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.#next++;
    this.#due.set(id, { at: this.clock.now() + ms, fn });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.#due.delete(handle as number);
  }

  get pending(): number {
    return this.#due.size;
  }

  advance(ms: number): void {
    const until = this.clock.now() + ms;
    for (;;) {
      const next = [...this.#due.entries()].filter(([, t]) => t.at <= until).sort(([, a], [, b]) => a.at - b.at)[0];
      if (!next) break;
      this.#due.delete(next[0]);
      this.clock.set(Math.max(this.clock.now(), next[1].at));
      next[1].fn();
    }
    this.clock.set(until);
  }
}
