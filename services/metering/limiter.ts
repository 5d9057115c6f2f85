/**
 * The rate limiter: one decision per request over the caller's optional per-key and per-IP caps
 * and its organization's plan rate, taken atomically (in one Lua script on Redis, synchronously
 * in memory). Implementations: `limiter.memory.ts` (embedded default), `limiter.redis.ts`.
 *
 * Semantics of one decision (quantity 1):
 * 1. any cap denies → nothing is consumed, outcome `cap-exceeded` (429 RATE_LIMIT_EXCEEDED);
 * 2. the caps allow and the organization's rate denies → the caps are consumed (the request
 *    counts against them, it is billed), outcome `org-exceeded`;
 * 3. all allow → all consumed.
 * Quantity 0 consumes nothing and reports the organization's state (for headers on free routes).
 *
 * The Redis limiter may answer organization-only decisions from a lease taken ahead of use
 * (`limiter.redis.ts`): exact per request for the caps, within a stated bound for the organization.
 */
export interface LimitRule {
  key: string;
  /** Sustained rate. */
  perSecond: number;
  /** Requests that may arrive at once after a quiet period (GCRA's burst). */
  burst: number;
}

export interface LimitCheck {
  caps: readonly LimitRule[];
  org: LimitRule;
  quantity: 0 | 1;
}

export interface OrgRateState {
  limit: number;
  remaining: number;
  /** When the organization's allowance is whole again, Unix ms. */
  resetAtMs: number;
}

export interface LimitDecision {
  outcome: 'allowed' | 'cap-exceeded' | 'org-exceeded';
  org: OrgRateState;
  /** How long until the denied request would be allowed; 0 when allowed. */
  retryAfterMs: number;
}

export interface RateLimiter {
  check(request: LimitCheck): Promise<LimitDecision>;
  /**
   * `check`'s decision when this process can take it without waiting (Redis: from a live lease
   * or a recent read; in memory: always), counted and applied as `check` would; undefined when
   * `check` must run, nothing taken then. Only for requests without caps (undefined with caps).
   */
  checkNow(request: LimitCheck): LimitDecision | undefined;
  /** Counters a metrics module can read. */
  stats(): LimiterStats;
  close(): Promise<void>;
}

export interface LimiterStats {
  decisions: number;
  /** Decisions taken without the backend (Redis down): allowed, see docs/metering.md (fail open). */
  failOpen: number;
  /** Calls to the shared store (Redis): one per exact decision, one per organization lease. 0 in memory. */
  roundTrips: number;
}
