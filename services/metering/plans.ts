import { z } from 'zod';
import type { Principal } from '../identity/index.js';
import { PLANS_V1 } from './plans.v1.js';

/**
 * What each plan allows: the one source of the per-plan numbers (rates, credits, projects,
 * streams, webhooks, proofs). Loaded from the versioned plans file and validated once.
 */
export const PLAN_IDS = ['free', 'team', 'growth', 'professional', 'business', 'enterprise', 'wallet'] as const;
export type PlanId = (typeof PLAN_IDS)[number];

const count = z.number().int().nonnegative();
const planSchema = z.object({
  /** Organization-wide requests per second (the burst allowance is one second's worth). */
  orgRps: z.number().int().positive(),
  /** Credits that replenish on the 1st of each month (UTC). */
  monthlyCredits: count,
  projects: count,
  streams: count,
  webhooks: count,
  /** zkLogin proofs per minute; null = unlimited. */
  proofsPerMinute: count.nullable(),
});
export type Plan = z.infer<typeof planSchema> & { id: PlanId };

const plansFileSchema = z.object({
  version: z.literal(1),
  plans: z.object(Object.fromEntries(PLAN_IDS.map((id) => [id, planSchema])) as Record<PlanId, typeof planSchema>),
});

function loadPlans(file: unknown): Readonly<Record<PlanId, Plan>> {
  const parsed = plansFileSchema.parse(file);
  const plans = Object.fromEntries(PLAN_IDS.map((id) => [id, Object.freeze({ ...parsed.plans[id], id })]));
  return Object.freeze(plans as Record<PlanId, Plan>);
}

export const PLANS_VERSION = 1;
export const PLANS = loadPlans(PLANS_V1);

/** Subscription states in which a paid plan is in force (spec: past_due and cancel_pending keep access). */
const ACTIVE_STATUSES = new Set(['active', 'trialing', 'past_due', 'awaiting_first_charge', 'cancel_pending']);

function isPlanId(value: string | null | undefined): value is PlanId {
  return value !== null && value !== undefined && (PLAN_IDS as readonly string[]).includes(value);
}

/**
 * The plan of an organization: its subscription's plan while that subscription is in force,
 * else its tier; anything unknown is Free (fail closed: the smallest limits).
 */
export function planOf(organization: Pick<Principal['organization'], 'tier' | 'subscription'>): Plan {
  const subscription = organization.subscription;
  if (subscription && isPlanId(subscription.plan) && subscription.status !== null && ACTIVE_STATUSES.has(subscription.status)) {
    return PLANS[subscription.plan];
  }
  return isPlanId(organization.tier) ? PLANS[organization.tier] : PLANS.free;
}

/** Projects an organization of this tier may hold (spec: "Projects: set by plan"). */
export function projectLimit(tier: string): number {
  return (isPlanId(tier) ? PLANS[tier] : PLANS.free).projects;
}
