import { UpstreamError } from './errors.js';

export interface RetryPolicy {
  /** Total time budget of one logical call, all attempts and waits included. */
  deadlineMs: number;
  /** The request's own deadline (epoch ms), when the call is part of a request: the call never outlives it. */
  deadlineAt?: number | undefined;
  /** Upper bound of one attempt (never more than what is left of the budget). */
  attemptTimeoutMs: number;
  /** Extra attempts after the first; only for idempotent reads. */
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export interface RetryEnv {
  now: () => number;
  random: () => number;
  sleep: (ms: number) => Promise<void>;
}

export const realRetryEnv: RetryEnv = {
  now: () => Date.now(),
  random: Math.random,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** "Full jitter" backoff: uniform in [0, min(max, base * 2^attempt)), so retries of many callers spread out. */
export function backoffDelay(attempt: number, policy: RetryPolicy, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.floor(random() * ceiling);
}

/**
 * Runs `attempt(timeoutMs)` until it succeeds, fails with a non-retryable error, runs out of
 * attempts, or the budget cannot fit another try. Each attempt is told its own timeout, so the
 * whole call never outlives `deadlineMs`.
 */
export async function withRetries<T>(
  policy: RetryPolicy,
  env: RetryEnv,
  idempotent: boolean,
  attempt: (timeoutMs: number) => Promise<T>,
): Promise<T> {
  const deadline = Math.min(env.now() + policy.deadlineMs, policy.deadlineAt ?? Infinity);
  const maxAttempts = idempotent ? 1 + policy.retries : 1;
  for (let n = 0; ; n += 1) {
    const remaining = deadline - env.now();
    try {
      return await attempt(Math.max(1, Math.min(policy.attemptTimeoutMs, remaining)));
    } catch (error) {
      const retryable = error instanceof UpstreamError && error.isRetryable;
      if (!retryable || n + 1 >= maxAttempts) throw error;
      // The upstream's Retry-After (e.g. a GraphQL 503) is a floor under our own backoff.
      const delay = Math.max(backoffDelay(n, policy, env.random), error.retryAfterMs ?? 0);
      // Not worth starting an attempt that would have less than a tenth of its usual time.
      if (deadline - env.now() - delay < policy.attemptTimeoutMs / 10) throw error;
      await env.sleep(delay);
    }
  }
}
