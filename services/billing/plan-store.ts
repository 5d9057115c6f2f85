import { randomBytes } from 'node:crypto';
import type { Kysely, Selectable, Transaction } from 'kysely';
import { toBase58 } from '@mysten/sui/utils';
import type { Clock, Network } from '../core/index.js';
import type { DatabaseSchema, OnchainPlansTable } from '../db/index.js';
import { notifyIdentityChange } from '../identity/index.js';
import type { Interval, PaidTier } from './domain/prices.js';
import { PAID_STATES, transition, type Actor, type PlanState, type PlanTrigger } from './domain/plan-state.js';

type Db = Kysely<DatabaseSchema> | Transaction<DatabaseSchema>;

export function billingId(prefix: 'plan' | 'chg' | 'ptr' | 'mail'): string {
  return `${prefix}_${toBase58(randomBytes(12))}`;
}

/** An on-chain plan as the billing service works with it (times in ms, money in micro-USDC). */
export interface OnchainPlan {
  id: string;
  organizationId: string;
  network: Network;
  tier: PaidTier;
  interval: Interval;
  state: PlanState;
  allowanceId: string;
  allowanceCapId: string | null;
  funder: string;
  price: bigint;
  pendingTier: PaidTier | null;
  pendingAllowanceId: string | null;
  anchorAt: number | null;
  periodsPaid: number;
  periodStart: number | null;
  periodEnd: number | null;
  failedAttempts: number;
  nextAttemptAt: number | null;
  remindedFor: number | null;
  notifyEmail: string | null;
  createdAt: number;
}

type Row = Selectable<OnchainPlansTable>;

const ms = (value: Date | null): number | null => (value === null ? null : value.getTime());
const date = (value: number | null): Date | null => (value === null ? null : new Date(value));

export function planFromRow(row: Row): OnchainPlan {
  return {
    id: row.id,
    organizationId: row.organization_id,
    network: row.network as Network,
    tier: row.tier as PaidTier,
    interval: row.interval as Interval,
    state: row.state as PlanState,
    allowanceId: row.allowance_id,
    allowanceCapId: row.allowance_cap_id,
    funder: row.funder,
    price: BigInt(row.price_micro_usdc),
    pendingTier: row.pending_tier as PaidTier | null,
    pendingAllowanceId: row.pending_allowance_id,
    anchorAt: ms(row.anchor_at),
    periodsPaid: row.periods_paid,
    periodStart: ms(row.period_start),
    periodEnd: ms(row.period_end),
    failedAttempts: row.failed_attempts,
    nextAttemptAt: ms(row.next_attempt_at),
    remindedFor: ms(row.reminded_for),
    notifyEmail: row.notify_email,
    createdAt: row.created_at.getTime(),
  };
}

/**
 * Whether two readings of a plan agree on everything a charge is decided on (state, tier,
 * allowance, pending change, periods paid): a charge decided on `decided` may be recorded on `now`.
 */
export function sameTerms(now: OnchainPlan, decided: OnchainPlan): boolean {
  return now.state === decided.state && now.tier === decided.tier && now.allowanceId === decided.allowanceId
    && now.pendingTier === decided.pendingTier && now.pendingAllowanceId === decided.pendingAllowanceId && now.periodsPaid === decided.periodsPaid;
}

/** The organization's live plan (not ended), locked for update when inside a transaction. */
export async function livePlanOf(db: Db, organizationId: string, lock = false): Promise<OnchainPlan | undefined> {
  let query = db.selectFrom('onchain_plans').selectAll().where('organization_id', '=', organizationId).where('state', '<>', 'ended');
  if (lock) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row ? planFromRow(row as Row) : undefined;
}

/** The organization's live plan, else its most recent one (ended); undefined if it never had one. */
export async function latestPlanOf(db: Db, organizationId: string): Promise<OnchainPlan | undefined> {
  const live = await livePlanOf(db, organizationId);
  if (live) return live;
  const row = await db.selectFrom('onchain_plans').selectAll().where('organization_id', '=', organizationId)
    .orderBy('created_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
  return row ? planFromRow(row as Row) : undefined;
}

export async function planById(db: Db, id: string, lock = false): Promise<OnchainPlan | undefined> {
  let query = db.selectFrom('onchain_plans').selectAll().where('id', '=', id);
  if (lock) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row ? planFromRow(row as Row) : undefined;
}

/** A new plan in the activate row's state, its transition row, and the organization following it. */
export async function activatePlan(trx: Transaction<DatabaseSchema>, clock: Clock, plan: OnchainPlan, reason: string): Promise<OnchainPlan> {
  const row = transition(null, 'activate');
  const activated = { ...plan, state: row.to };
  await insertPlan(trx, activated);
  await trx.insertInto('plan_transitions').values({
    id: billingId('ptr'), plan_id: plan.id, from_state: null, to_state: row.to, trigger: 'activate', actor: 'owner', reason,
    idempotency_key: `${plan.id}:activate`, at: new Date(clock.now()),
  }).execute();
  await syncOrganization(trx, activated);
  return activated;
}

async function insertPlan(trx: Transaction<DatabaseSchema>, plan: OnchainPlan): Promise<void> {
  await trx.insertInto('onchain_plans').values({
    id: plan.id,
    organization_id: plan.organizationId,
    network: plan.network,
    tier: plan.tier,
    interval: plan.interval,
    state: plan.state,
    allowance_id: plan.allowanceId,
    allowance_cap_id: plan.allowanceCapId,
    funder: plan.funder,
    ...termColumns(plan),
    created_at: new Date(plan.createdAt),
  }).execute();
}

/** Writes a plan's fields (not its state: states change through `applyTransition` only). */
export async function savePlan(trx: Transaction<DatabaseSchema>, plan: OnchainPlan): Promise<void> {
  await trx.updateTable('onchain_plans').set({
    tier: plan.tier,
    allowance_id: plan.allowanceId,
    allowance_cap_id: plan.allowanceCapId,
    ...termColumns(plan),
  }).where('id', '=', plan.id).execute();
}

/** The columns of a plan's price, period and charging progress: written alike on insert and on save. */
function termColumns(plan: OnchainPlan) {
  return {
    price_micro_usdc: plan.price,
    pending_tier: plan.pendingTier,
    pending_allowance_id: plan.pendingAllowanceId,
    anchor_at: date(plan.anchorAt),
    periods_paid: plan.periodsPaid,
    period_start: date(plan.periodStart),
    period_end: date(plan.periodEnd),
    failed_attempts: plan.failedAttempts,
    next_attempt_at: date(plan.nextAttemptAt),
    reminded_for: date(plan.remindedFor),
    notify_email: plan.notifyEmail,
  };
}

/**
 * Moves a plan along one row of the state table, writes the transition row (once per
 * idempotency key) and makes the organization's plan follow: its subscription columns are what
 * metering's planOf reads, and every authenticator hears of the change through NOTIFY.
 * Undefined when the key was recorded already: nothing was written, the plan did not move.
 */
export async function applyTransition(
  trx: Transaction<DatabaseSchema>,
  clock: Clock,
  plan: OnchainPlan,
  trigger: PlanTrigger,
  options: { actor: Actor; reason: string; idempotencyKey: string },
): Promise<OnchainPlan | undefined> {
  const row = transition(plan.state, trigger);
  if (row.actor !== options.actor) throw new Error(`${trigger} is the ${row.actor}'s, not the ${options.actor}'s`);
  const now = clock.now();
  const inserted = await trx.insertInto('plan_transitions').values({
    id: billingId('ptr'),
    plan_id: plan.id,
    from_state: plan.state,
    to_state: row.to,
    trigger,
    actor: options.actor,
    reason: options.reason,
    idempotency_key: options.idempotencyKey,
    at: new Date(now),
  }).onConflict((oc) => oc.column('idempotency_key').doNothing()).returning('id').executeTakeFirst();
  if (!inserted) return undefined;
  const next: OnchainPlan = { ...plan, state: row.to };
  await trx.updateTable('onchain_plans').set({ state: row.to, ended_at: row.to === 'ended' ? new Date(now) : null }).where('id', '=', plan.id).execute();
  await syncOrganization(trx, next);
  return next;
}

/**
 * The sequence number of the plan's latest transition: which state the plan is in, as a version
 * (a plan cancelled and resumed is `active` again, at a later version).
 */
export async function stateVersion(trx: Transaction<DatabaseSchema>, planId: string): Promise<string> {
  const row = await trx.selectFrom('plan_transitions').select('seq').where('plan_id', '=', planId).orderBy('seq', 'desc').limit(1).executeTakeFirstOrThrow();
  return row.seq;
}

/** The organization's subscription columns follow the plan (metering/plans.ts planOf). */
export async function syncOrganization(trx: Transaction<DatabaseSchema>, plan: OnchainPlan): Promise<void> {
  const paid = PAID_STATES.includes(plan.state);
  await trx.updateTable('organizations').set({
    subscription_plan: paid ? plan.tier : null,
    subscription_status: plan.state,
    subscription_period_end: date(plan.periodEnd),
  }).where('id', '=', plan.organizationId).execute();
  await notifyIdentityChange(trx, { organizationId: plan.organizationId });
}
