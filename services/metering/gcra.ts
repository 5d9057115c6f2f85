/**
 * The generic cell rate algorithm (GCRA, as redis-cell implements it): one number per key, the
 * theoretical arrival time (TAT). A request is allowed while TAT − now stays within the burst
 * tolerance; allowing it moves TAT one emission interval later. Unlike envoyproxy/ratelimit's
 * fixed window it never admits 2× the rate at a window edge, and unlike a sliding log it stores
 * one number per key. `limiter.redis.ts` runs the same arithmetic in Lua.
 */
export interface GcraParams {
  /** Milliseconds between two requests at the sustained rate. */
  intervalMs: number;
  /** Burst tolerance: intervalMs × burst. */
  toleranceMs: number;
}

export interface GcraResult {
  allowed: boolean;
  /** TAT after the decision (unchanged when denied). */
  tat: number;
  remaining: number;
  retryAfterMs: number;
}

export function gcraParams(perSecond: number, burst: number): GcraParams {
  const intervalMs = 1000 / perSecond;
  return { intervalMs, toleranceMs: intervalMs * Math.max(1, burst) };
}

export function gcra(storedTat: number | undefined, now: number, params: GcraParams, quantity: number): GcraResult {
  const tat = Math.max(clockSafeTat(storedTat, now, params) ?? now, now);
  const newTat = tat + params.intervalMs * quantity;
  const allowAt = newTat - params.toleranceMs;
  if (quantity > 0 && allowAt > now) {
    return { allowed: false, tat, remaining: remainingAt(tat, now, params), retryAfterMs: allowAt - now };
  }
  return { allowed: true, tat: newTat, remaining: remainingAt(newTat, now, params), retryAfterMs: 0 };
}

/**
 * An allowed decision leaves TAT at most `now + toleranceMs`, so a stored TAT beyond that (one
 * interval of slack for rounding) means the clock went backwards since it was stored: a host's
 * clock stepped back, or a test's. Kept, it would refuse every request until the clock caught
 * up again (a day, for a clock stepped back a day); dropped, the key starts afresh, as after a
 * restart. The Redis scripts apply the same rule to Redis's clock.
 */
function clockSafeTat(storedTat: number | undefined, now: number, params: GcraParams): number | undefined {
  if (storedTat === undefined || storedTat > now + params.toleranceMs + params.intervalMs) return undefined;
  return storedTat;
}

function remainingAt(tat: number, now: number, params: GcraParams): number {
  return Math.max(0, Math.floor((now + params.toleranceMs - tat) / params.intervalMs + 1e-9));
}
