import type { Metrics } from '../core/index.js';
import type { RateLimiter } from '../metering/index.js';
import type { Plan } from '../plans/index.js';

export type ProofRateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * Proofs per minute per organization, by plan (spec: Limits; `proofsPerMinute` in the plans
 * file, null = unlimited). It runs on the metering limiter (Redis when REDIS_URL is set, so the
 * cap holds across replicas; in memory otherwise): GCRA at the plan's rate per minute with a
 * burst of one minute's worth, under a key of its own beside the organization's request rate.
 */
export class ProofRateLimit {
  readonly #limiter: RateLimiter;
  readonly #rejections: Metrics['rateLimitRejections'] | undefined;

  /** `rejections`: the process's `suigw_rate_limit_rejections_total`, whose `proofs` kind counts this cap's 429s. */
  constructor(limiter: RateLimiter, rejections?: Metrics['rateLimitRejections']) {
    this.#limiter = limiter;
    this.#rejections = rejections;
  }

  async take(organizationId: string, plan: Plan): Promise<ProofRateDecision> {
    const perMinute = plan.proofsPerMinute;
    if (perMinute === null) return { allowed: true };
    // A plan without proofs never gets here (PLAN_REQUIRED first); refusing keeps GCRA from dividing by zero.
    if (perMinute === 0) return this.#refused(60);
    const decision = await this.#limiter.check({
      caps: [],
      org: { key: `zklogin-proofs:${organizationId}`, perSecond: perMinute / 60, burst: perMinute },
      quantity: 1,
    });
    if (decision.outcome === 'allowed') return { allowed: true };
    return this.#refused(Math.max(1, Math.ceil(decision.retryAfterMs / 1000)));
  }

  #refused(retryAfterSeconds: number): ProofRateDecision {
    this.#rejections?.inc({ kind: 'proofs' });
    return { allowed: false, retryAfterSeconds };
  }
}
