import type { Transaction } from 'kysely';
import type { Clock } from '../core/index.js';
import type { DatabaseSchema } from '../db/index.js';
import type { Charger, ChargeOrder, SettledCharge } from './charger.js';
import { chargeDate } from './domain/periods.js';
import { periodPrice, type PaidTier } from './domain/prices.js';
import { applyTransition, savePlan, type OnchainPlan } from './plan-store.js';

/**
 * Writes an upgrade `now`'s charge outcome to the plan (`locked`: read under its row lock in
 * `trx`), settling the charge in the same transaction. Rule 6: paid, a new period starts at the
 * upgrade's time, so the charge day becomes that day's; declined, the current plan continues and
 * the change applies at the next renewal. The change `now` that charged it writes it, or, when
 * that process stopped after signing, the billing pass that recovers the charge (`why` says so).
 */
export async function writeUpgradeOutcome(
  trx: Transaction<DatabaseSchema>,
  deps: { clock: Clock; charger: Charger },
  locked: OnchainPlan,
  order: ChargeOrder,
  result: SettledCharge,
  why = '',
): Promise<void> {
  const tier = order.tier as PaidTier;
  await deps.charger.settle(trx, result);
  const paid = result.kind === 'succeeded';
  const next: OnchainPlan = paid ? { ...locked, ...paidUpgrade(locked, order) } : { ...locked, pendingTier: tier, pendingAllowanceId: order.allowanceId };
  await savePlan(trx, next);
  const reason = paid
    ? `upgraded to ${tier} now (charged ${order.amount} micro-USDC, digest ${result.digest})${why}`
    : `upgrade to ${tier} charge failed; applies at the next renewal${why}`;
  // A paid upgrade is a transition of the table (past_due → active: nothing is owed any more); in a
  // state without that row it throws, the charge stays in flight and the plan's processing fails
  // visibly rather than writing the paid period where it cannot apply.
  if (paid || locked.state === 'active') {
    await applyTransition(trx, deps.clock, next, 'tier_changed', { actor: 'owner', reason, idempotencyKey: `${locked.id}:change:${deps.clock.now()}:${next.tier}:${next.pendingTier ?? ''}` });
  }
}

/** The plan's terms once an upgrade is paid: its tier, price and allowance, a period from the upgrade's time. */
function paidUpgrade(plan: OnchainPlan, order: ChargeOrder): Partial<OnchainPlan> {
  const periodEnd = chargeDate(order.periodKey, plan.interval, 1);
  const tier = order.tier as PaidTier;
  return {
    tier, price: periodPrice(tier, plan.interval), allowanceId: order.allowanceId,
    // A cap belongs to its allowance; a new one's is not known (change takes no cap id).
    allowanceCapId: order.allowanceId === plan.allowanceId ? plan.allowanceCapId : null,
    pendingTier: null, pendingAllowanceId: null, anchorAt: order.periodKey, periodsPaid: 1, periodStart: order.periodKey,
    periodEnd, nextAttemptAt: periodEnd, failedAttempts: 0, remindedFor: null,
  };
}
