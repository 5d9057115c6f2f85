import type { Metrics, RateLimitKind } from '../core/index.js';
import type { RateLimiter } from './limiter.js';

/**
 * An allowance of so many calls a minute (and as many at once) under a key of its own, outside
 * any organization's request rate: zkLogin's proofs per organization, the anonymous wallet
 * routes per client address. It runs on the metering limiter (Redis when REDIS_URL is set, so it
 * holds across replicas, failing open as every limit does; in memory otherwise), GCRA at
 * `perMinute / 60` a second with a burst of `perMinute`. A refusal is counted in
 * `suigw_rate_limit_rejections_total` under `kind`.
 */
export class PerMinuteAllowance {
  readonly #limiter: RateLimiter;
  readonly #kind: RateLimitKind;
  readonly #rejections: Metrics['rateLimitRejections'] | undefined;

  constructor(limiter: RateLimiter, kind: RateLimitKind, rejections?: Metrics['rateLimitRejections']) {
    this.#limiter = limiter;
    this.#kind = kind;
    this.#rejections = rejections;
  }

  /** Takes one call: undefined when allowed, else the seconds to wait (at least 1). `perMinute` 0 refuses for a minute. */
  async take(key: string, perMinute: number): Promise<number | undefined> {
    // Refusing 0 here keeps GCRA from dividing by zero.
    if (perMinute === 0) return this.#refused(60);
    const decision = await this.#limiter.check({ caps: [], org: { key, perSecond: perMinute / 60, burst: perMinute }, quantity: 1 });
    if (decision.outcome === 'allowed') return undefined;
    return this.#refused(Math.max(1, Math.ceil(decision.retryAfterMs / 1000)));
  }

  #refused(retryAfterSeconds: number): number {
    this.#rejections?.inc({ kind: this.#kind });
    return retryAfterSeconds;
  }
}
