import { describe, expect, it } from 'vitest';
import { MAX_ATTEMPTS, nextAttemptDelay, parseRetryAfter } from './retry-schedule.js';

describe('retry schedule', () => {
  it('waits 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h after failures 1..7, and gives up after the 8th', () => {
    expect(Array.from({ length: 7 }, (_, i) => nextAttemptDelay(i + 1, null))).toEqual([
      5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
    ]);
    expect(MAX_ATTEMPTS).toBe(8);
    expect(nextAttemptDelay(8, null)).toBeUndefined();
  });

  it('a longer Retry-After pushes the next attempt back, capped at a day; a shorter one does not bring it forward', () => {
    expect(nextAttemptDelay(1, 60_000)).toBe(60_000);
    expect(nextAttemptDelay(3, 60_000)).toBe(1_800_000);
    expect(nextAttemptDelay(1, 7 * 86_400_000)).toBe(86_400_000);
    expect(nextAttemptDelay(8, 60_000)).toBeUndefined();
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.UTC(2026, 10, 22, 12, 0, 0);
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 12:10:00 GMT', now)).toBe(600_000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 11:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
  });
});
