import { describe, expect, it } from 'vitest';
import { AdaptiveLimit, defaultAdaptiveLimit } from './adaptive-limit.js';

/** A limit past its first base measurement (the first calls run at the minimum). */
function limitAt(now = { ms: 0 }, baseMs = 3) {
  const limit = new AdaptiveLimit({ ...defaultAdaptiveLimit, max: 32, now: () => now.ms });
  answer(limit, defaultAdaptiveLimit.baseSamples, baseMs);
  return limit;
}

/** `count` answers of `operation`, each after `tookMs`. */
function answer(limit: AdaptiveLimit, count: number, tookMs: number, operation = 'GetObject'): void {
  for (let i = 0; i < count; i += 1) limit.answered(operation, tookMs);
}

describe('AdaptiveLimit', () => {
  it('starts at the minimum until the first calls have set a base, then stays at the maximum while calls take their unloaded time', () => {
    const fresh = new AdaptiveLimit({ ...defaultAdaptiveLimit, max: 32, now: () => 0 });
    expect(fresh.current).toBe(defaultAdaptiveLimit.min);
    answer(fresh, defaultAdaptiveLimit.baseSamples - 1, 3);
    expect(fresh.current).toBe(defaultAdaptiveLimit.min);
    const limit = limitAt();
    expect(limit.current).toBe(32);
    answer(limit, 500, 3);
    expect(limit.current).toBe(32);
  });

  it('shrinks toward the minimum once calls take far longer than their base, and grows back when they do not', () => {
    const limit = limitAt();
    // The node now queues: every call takes 40× its base (3 ms × 2 + 2 ms allowed, 120 ms taken).
    answer(limit, 64, 120);
    expect(limit.current).toBeLessThan(32);
    answer(limit, 200, 120);
    expect(limit.current).toBe(defaultAdaptiveLimit.min);
    answer(limit, 200, 3);
    expect(limit.current).toBe(32);
  });

  it('judges each operation against its own base: a slow method at its usual speed is not queueing', () => {
    const limit = limitAt();
    for (let i = 0; i < 300; i += 1) {
      limit.answered('GetObject', 3);
      limit.answered('graphql', 80);
    }
    expect(limit.current).toBe(32);
  });

  it('halves at once when the node leaves a call unanswered', () => {
    const limit = limitAt();
    limit.timedOut();
    expect(limit.current).toBe(16);
    limit.timedOut();
    limit.timedOut();
    limit.timedOut();
    expect(limit.current).toBe(defaultAdaptiveLimit.min);
  });

  it('pins the limit to the minimum for a few calls every base interval, then restores it', () => {
    const now = { ms: 0 };
    const limit = limitAt(now);
    answer(limit, 32, 3);
    now.ms = defaultAdaptiveLimit.baseIntervalMs;
    answer(limit, 32, 3);
    expect(limit.current).toBe(defaultAdaptiveLimit.min);
    answer(limit, defaultAdaptiveLimit.baseSamples, 3);
    expect(limit.current).toBe(32);
  });

  it('forgets a base older than two intervals, so a node that became slower for good is not seen as queueing forever', () => {
    const now = { ms: 0 };
    const limit = limitAt(now, 2);
    // From now on the node answers in 50 ms even unloaded (pinned calls included).
    for (let interval = 1; interval <= 3; interval += 1) {
      now.ms = interval * defaultAdaptiveLimit.baseIntervalMs;
      answer(limit, 400, 50);
    }
    answer(limit, 400, 50);
    expect(limit.current).toBe(32);
  });
});
