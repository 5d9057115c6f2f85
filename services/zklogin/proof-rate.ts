import type { Metrics } from '../core/index.js';
import { PerMinuteAllowance, type RateLimiter } from '../metering/index.js';
import type { Plan } from '../plans/index.js';

export type ProofRateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * Proofs per minute per organization, by plan (spec: Limits; `proofsPerMinute` in the plans
 * file, null = unlimited): a per-minute allowance on the metering limiter, under a key of its own
 * beside the organization's request rate.
 */
export class ProofRateLimit {
  readonly #allowance: PerMinuteAllowance;

  /** `rejections`: the process's `suigw_rate_limit_rejections_total`, whose `proofs` kind counts this cap's 429s. */
  constructor(limiter: RateLimiter, rejections?: Metrics['rateLimitRejections']) {
    this.#allowance = new PerMinuteAllowance(limiter, 'proofs', rejections);
  }

  async take(organizationId: string, plan: Plan): Promise<ProofRateDecision> {
    const perMinute = plan.proofsPerMinute;
    if (perMinute === null) return { allowed: true };
    // A plan without proofs never gets here (PLAN_REQUIRED first); the allowance refuses 0.
    const retryAfterSeconds = await this.#allowance.take(`zklogin-proofs:${organizationId}`, perMinute);
    return retryAfterSeconds === undefined ? { allowed: true } : { allowed: false, retryAfterSeconds };
  }
}
