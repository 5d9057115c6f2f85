import type { Clock } from '../core/index.js';
import { gcra, gcraParams, type GcraResult } from './gcra.js';
import type { LimitCheck, LimitDecision, LimiterStats, LimitRule, RateLimiter } from './limiter.js';

/** Sweep expired keys once this many are stored, so idle callers do not accumulate. */
const SWEEP_AT = 10_000;

/**
 * The embedded limiter: one process, the injected clock. Correct for `suigw dev` and a single
 * gateway; several gateways need `REDIS_URL` (each would otherwise allow the full rate).
 */
export class MemoryRateLimiter implements RateLimiter {
  readonly #clock: Clock;
  readonly #tats = new Map<string, number>();
  #decisions = 0;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  async check(request: LimitCheck): Promise<LimitDecision> {
    return this.#decide(request);
  }

  checkNow(request: LimitCheck): LimitDecision | undefined {
    return request.caps.length === 0 ? this.#decide(request) : undefined;
  }

  #decide(request: LimitCheck): LimitDecision {
    this.#decisions += 1;
    const now = this.#clock.now();
    if (this.#tats.size >= SWEEP_AT) this.#sweep(now);
    const caps = request.caps.map((rule) => ({ rule, result: this.#evaluate(rule, now, request.quantity) }));
    const deniedCap = caps.find((cap) => !cap.result.allowed);
    if (deniedCap) {
      return { outcome: 'cap-exceeded', org: this.#orgState(request.org, this.#evaluate(request.org, now, 0)), retryAfterMs: deniedCap.result.retryAfterMs };
    }
    for (const cap of caps) this.#tats.set(cap.rule.key, cap.result.tat);
    const org = this.#evaluate(request.org, now, request.quantity);
    if (!org.allowed) return { outcome: 'org-exceeded', org: this.#orgState(request.org, org), retryAfterMs: org.retryAfterMs };
    this.#tats.set(request.org.key, org.tat);
    return { outcome: 'allowed', org: this.#orgState(request.org, org), retryAfterMs: 0 };
  }

  stats(): LimiterStats {
    return { decisions: this.#decisions, failOpen: 0, roundTrips: 0 };
  }

  async close(): Promise<void> {
    this.#tats.clear();
  }

  // A method rather than a closure made per call: tsx's keepNames names every closure when it is
  // made (an Object.defineProperty per request; docs/benchmarks.md, "HTTP layer").
  #evaluate(rule: LimitRule, now: number, quantity: number): GcraResult {
    return gcra(this.#tats.get(rule.key), now, gcraParams(rule.perSecond, rule.burst), quantity);
  }

  #orgState(rule: LimitRule, result: GcraResult): LimitDecision['org'] {
    return { limit: rule.perSecond, remaining: result.remaining, resetAtMs: Math.max(result.tat, this.#clock.now()) };
  }

  #sweep(now: number): void {
    for (const [key, tat] of this.#tats) if (tat <= now) this.#tats.delete(key);
  }
}
