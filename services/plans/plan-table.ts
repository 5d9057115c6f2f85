import { z } from 'zod';
import { PLANS_V1 } from './plans.v1.js';
import { parseTier, TIERS, type Tier } from './tiers.js';

/**
 * What each plan allows: the one source of the per-plan numbers (rates, credits, projects,
 * streams, webhooks, proofs). Loaded from the versioned plans file and validated once.
 */
/** One plan per tier. */
export const PLAN_IDS = TIERS;
export type PlanId = Tier;

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

export type PlanTable = Readonly<Record<PlanId, Plan>>;

function loadPlans(file: unknown): PlanTable {
  const parsed = plansFileSchema.parse(file);
  const plans = Object.fromEntries(PLAN_IDS.map((id) => [id, Object.freeze({ ...parsed.plans[id], id })]));
  return Object.freeze(plans as Record<PlanId, Plan>);
}

export class PlansFileError extends Error {
  constructor(readonly path: string, readonly issues: string[]) {
    super(`plans file ${path} is not valid:\n  ${issues.join('\n  ')}`);
    this.name = 'PlansFileError';
  }
}

/**
 * Parses a self-hosted deployment's own plans file (SUIGW_PLANS_FILE): the same shape as
 * plans.v1.ts, every plan and every number present, so that a file can never leave a plan
 * half-defined.
 */
export function parsePlansFile(path: string, text: string): PlanTable {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new PlansFileError(path, [`not JSON: ${error instanceof Error ? error.message : String(error)}`]);
  }
  const parsed = plansFileSchema.safeParse(json);
  if (!parsed.success) {
    throw new PlansFileError(path, parsed.error.issues.map((issue) => `${issue.path.join('.') || '(file)'}: ${issue.message}`));
  }
  return loadPlans(parsed.data);
}

export const PLANS_VERSION = 1;
/** The built-in plans (plans.v1.ts): in force unless the deployment installs its own file. */
export const PLANS = loadPlans(PLANS_V1);

let inForce: PlanTable = PLANS;

/**
 * Puts a deployment's plans in force for this process. Called once at start-up, before any
 * request, by every role (services/cli/runtime.ts), so that all processes of a deployment
 * that share the file enforce the same numbers.
 */
export function installPlans(table: PlanTable): void {
  inForce = table;
}

/** The plans in force: the installed file's, else the built-in ones. */
export function plansInForce(): PlanTable {
  return inForce;
}

/** Subscription states in which a paid plan is in force (spec: past_due and cancel_pending keep access). */
const ACTIVE_STATUSES = new Set(['active', 'trialing', 'past_due', 'awaiting_first_charge', 'cancel_pending']);

/** What decides an organization's plan. */
export interface PlanHolder {
  tier: string;
  subscription: { plan: string | null; status: string | null; periodEnd?: number | null } | null;
}

/**
 * The plan of an organization: its subscription's plan while that subscription is in force,
 * else its tier. An unknown tier or subscription plan is an error (UnknownTierError), never
 * silently the free plan: the database accepts only known tiers.
 */
export function planOf(organization: PlanHolder): Plan {
  const subscription = organization.subscription;
  if (subscription && subscription.plan !== null && subscription.status !== null && ACTIVE_STATUSES.has(subscription.status)) {
    return inForce[parseTier(subscription.plan)];
  }
  return inForce[parseTier(organization.tier)];
}

/** The columns of an `organizations` row that decide its plan. */
export interface PlanColumns {
  tier: string;
  subscription_plan: string | null;
  subscription_status: string | null;
}

/** `planOf` an organization's row, for code that reads the row itself (the credit ledger, the prepaid deduction, webhooks). */
export function planOfRow(row: PlanColumns): Plan {
  return planOf({ tier: row.tier, subscription: { plan: row.subscription_plan, status: row.subscription_status } });
}
