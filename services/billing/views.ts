import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../db/index.js';
import { chargeDate } from './domain/periods.js';
import { periodPrice } from './domain/prices.js';
import type { OnchainPlan } from './plan-store.js';

/** GET /v1/billing/onchain (and the answer of activate, change, cancel). Money: micro-USDC strings. */
export interface PlanView {
  id: string;
  state: OnchainPlan['state'];
  network: OnchainPlan['network'];
  plan: { tier: OnchainPlan['tier']; interval: OnchainPlan['interval']; price: string };
  pendingChange: { tier: OnchainPlan['tier']; allowanceId: string | null; at: 'next_renewal' } | null;
  allowance: { id: string; capId: string | null };
  funder: string;
  /** Null: the node could not be read when answering a request that had written the plan. */
  billingBalance: string | null;
  currentPeriod: { start: string; end: string } | null;
  nextCharge: { at: string; amount: string } | null;
  failedAttempts: number;
  /** An ended plan: when, by which transition and why (the last `plan_transitions` row into `ended`). */
  ended: { at: string; trigger: 'charge_failed' | 'final_charge_failed' | 'period_ended'; reason: string } | null;
  lastCharges: { id: string; kind: 'first' | 'renewal' | 'upgrade'; tier: string; amount: string; status: 'pending' | 'signed' | 'succeeded' | 'declined' | 'abandoned'; digest: string | null; declineReason: string | null; at: string }[];
}

const iso = (ms: number) => new Date(ms).toISOString();

export async function planView(db: Kysely<DatabaseSchema>, plan: OnchainPlan, balance: bigint | null): Promise<PlanView> {
  const charges = await db.selectFrom('billing_charges').selectAll().where('plan_id', '=', plan.id).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(10).execute();
  const end = plan.state === 'ended'
    ? await db.selectFrom('plan_transitions').select(['at', 'trigger', 'reason']).where('plan_id', '=', plan.id).where('to_state', '=', 'ended').orderBy('seq', 'desc').limit(1).executeTakeFirst()
    : undefined;
  const renews = plan.state === 'active' || plan.state === 'past_due' || plan.state === 'awaiting_first_charge';
  const nextAt = plan.state === 'awaiting_first_charge' ? plan.nextAttemptAt
    : plan.state === 'past_due' ? plan.nextAttemptAt
      : plan.anchorAt !== null ? chargeDate(plan.anchorAt, plan.interval, plan.periodsPaid) : null;
  return {
    id: plan.id,
    state: plan.state,
    network: plan.network,
    plan: { tier: plan.tier, interval: plan.interval, price: plan.price.toString() },
    pendingChange: plan.pendingTier ? { tier: plan.pendingTier, allowanceId: plan.pendingAllowanceId, at: 'next_renewal' } : null,
    allowance: { id: plan.allowanceId, capId: plan.allowanceCapId },
    funder: plan.funder,
    billingBalance: balance === null ? null : balance.toString(),
    currentPeriod: plan.periodStart !== null && plan.periodEnd !== null ? { start: iso(plan.periodStart), end: iso(plan.periodEnd) } : null,
    nextCharge: renews && nextAt !== null ? { at: iso(nextAt), amount: periodPrice(plan.pendingTier ?? plan.tier, plan.interval).toString() } : null,
    failedAttempts: plan.failedAttempts,
    ended: end ? { at: iso(end.at.getTime()), trigger: end.trigger as NonNullable<PlanView['ended']>['trigger'], reason: end.reason } : null,
    lastCharges: charges.map((charge) => ({
      id: charge.id, kind: charge.kind as PlanView['lastCharges'][number]['kind'], tier: charge.tier, amount: charge.amount_micro_usdc, status: charge.status as PlanView['lastCharges'][number]['status'], digest: charge.digest,
      declineReason: charge.decline_reason, at: iso(charge.updated_at.getTime()),
    })),
  };
}
