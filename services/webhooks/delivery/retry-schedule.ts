/**
 * When attempts happen, Svix's schedule: immediately, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h
 * and 10 h after the previous failure: 8 attempts over about 27.6 hours. Entry n is the wait
 * before attempt n + 1.
 */
export const RETRY_SCHEDULE_MS = [0, 5_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 5 * 3_600_000, 10 * 3_600_000, 10 * 3_600_000] as const;
export const MAX_ATTEMPTS = RETRY_SCHEDULE_MS.length;

/** A receiver's Retry-After is honoured up to this (a day), so one answer cannot park a delivery forever. */
export const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

/**
 * The wait after failed attempt number `attempts` (1-based), or undefined when it was the last.
 * A Retry-After longer than the schedule's wait pushes the next attempt back; a shorter one
 * does not bring it forward (the schedule already waits long enough for it).
 */
export function nextAttemptDelay(attempts: number, retryAfterMs: number | null): number | undefined {
  if (attempts >= MAX_ATTEMPTS) return undefined;
  const scheduled = RETRY_SCHEDULE_MS[attempts] ?? 0;
  return retryAfterMs === null ? scheduled : Math.max(scheduled, Math.min(retryAfterMs, MAX_RETRY_AFTER_MS));
}

/** `Retry-After` as milliseconds from `now`: delay-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number): number | null {
  if (value === undefined) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1_000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}
