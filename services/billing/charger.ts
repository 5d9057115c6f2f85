import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../core/index.js';
import type { DatabaseSchema } from '../db/index.js';
import { ChainUnavailable, ChargeDeclined, type Chain, type DeclineReason, type SignedCharge } from './chain/index.js';
import { billingId, planById, sameTerms, type OnchainPlan } from './plan-store.js';

export type ChargeKind = 'first' | 'renewal' | 'upgrade';

/** One charge the plan owes: what, for which period, under which allowance. */
export interface ChargeOrder {
  kind: ChargeKind;
  /** The period paid for (its due time, or an upgrade's start): with the kind, the idempotency key. */
  periodKey: number;
  amount: bigint;
  tier: string;
  allowanceId: string;
}

/**
 * A charge's outcome. `succeeded` and `declined` are still in flight in `billing_charges` until
 * the caller writes them to the plan with `settle`, in the transaction that writes the plan.
 */
export type ChargeResult =
  | { readonly kind: 'succeeded'; readonly digest: string; readonly chargeId: string }
  | { readonly kind: 'declined'; readonly digest: string | null; readonly reason: DeclineReason; readonly message: string; readonly chargeId: string }
  /** A failure of ours or the network's before the charge was signed: nothing was charged; try again later. */
  | { readonly kind: 'unavailable'; readonly message: string }
  /**
   * Signed and stored, but sending it failed (the node down, or its answer lost once it ran the
   * charge): it may have been taken. It stays in flight (`signed`) until recovery, the billing
   * pass's first step, asks the chain (or sends the same bytes again) and writes it to the plan.
   */
  | { readonly kind: 'in_flight'; readonly message: string; readonly chargeId: string }
  /**
   * The plan changed (a `change` or `cancel` landed) between the caller's reading of it and the
   * charge's record: nothing was recorded or charged; decide again on the plan as it is now.
   */
  | { readonly kind: 'superseded' };

/**
 * Takes a charge exactly once per (plan, period, kind), whatever crashes:
 * 1. a `pending` row is written BEFORE any transaction is built (the idempotency record; a
 *    unique index allows one charge in flight per plan, one success per period), under the plan
 *    row's lock, on the plan the charge was decided on (else `superseded`): the owner's `change`
 *    and `cancel` write the plan under that lock after checking for a charge in flight, so each
 *    lands either before the charge is decided or after it is settled, never in between;
 * 2. the signed transaction's digest and bytes are stored (`signed`) BEFORE it is sent;
 * 3. recovery (`recover`, the billing pass's first step for every plan) asks the chain about a
 *    stored digest before anything else: executed → its outcome, for the caller to write to the
 *    plan as the order it was (an upgrade `now` left by a crashed request included); never
 *    executed → the SAME bytes are sent again (Sui runs a digest at most once); only bytes that
 *    can never run any more (their gas coin moved on) are `abandoned`, and only then may a new
 *    transaction be built;
 * 4. the outcome is written (`settle`) in the transaction that writes it to the plan, so the
 *    charge stays in flight until the plan shows it: a cancel that lands once the chain has
 *    executed the charge, before the plan has the paid period, is 409 CHARGE_IN_PROGRESS (it was
 *    saved, and the paid period never reached the cancelled plan).
 * The billing pass holds a database lock around charging, so one sponsor key never has two
 * signers racing for its gas coin.
 */
export class Charger {
  readonly #db: Kysely<DatabaseSchema>;
  readonly #chain: Chain;
  readonly #clock: Clock;

  constructor(options: { db: Kysely<DatabaseSchema>; chain: Chain; clock: Clock }) {
    this.#db = options.db;
    this.#chain = options.chain;
    this.#clock = options.clock;
  }

  /**
   * Whether a charge of the plan is in flight (recorded or signed, outcome unknown): CHARGE_IN_PROGRESS.
   * `db`: a transaction holding the plan row's lock, to decide a write to the plan on it.
   */
  async inFlight(planId: string, db: Kysely<DatabaseSchema> = this.#db): Promise<boolean> {
    const row = await db.selectFrom('billing_charges').select('id').where('plan_id', '=', planId).where('status', 'in', ['pending', 'signed']).executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Takes `order` (or finds it taken); `succeeded` and `declined` are for the caller to `settle`.
   * A charge left signed is the caller's to `recover` and write to the plan first (the billing
   * pass does, before anything else): its row holds the plan's one place in flight (a unique
   * index), so no order is recorded beside it.
   */
  async charge(plan: OnchainPlan, order: ChargeOrder): Promise<ChargeResult> {
    try {
      const paid = await this.#db.selectFrom('billing_charges').select(['id', 'digest']).where('plan_id', '=', plan.id)
        .where('period_key', '=', new Date(order.periodKey)).where('kind', '=', order.kind).where('status', '=', 'succeeded').executeTakeFirst();
      if (paid) return { kind: 'succeeded', digest: paid.digest!, chargeId: paid.id };
      const recorded = (await this.#unsentRow(plan.id, order)) ?? (await this.#record(plan, order));
      if (recorded === undefined) return { kind: 'superseded' };
      return await this.#signAndSend(plan, recorded);
    } catch (error) {
      if (error instanceof ChainUnavailable) return { kind: 'unavailable', message: error.message };
      throw error;
    }
  }

  /**
   * Writes a charge's outcome; `trx` is the transaction (holding the plan row's lock) that writes
   * it to the plan. A charge found settled already is left as it is.
   */
  async settle(trx: Transaction<DatabaseSchema>, result: SettledCharge): Promise<void> {
    const now = new Date(this.#clock.now());
    const fields = result.kind === 'succeeded'
      ? { status: 'succeeded', digest: result.digest, updated_at: now }
      : { status: 'declined', digest: result.digest, decline_reason: result.reason, updated_at: now };
    await trx.updateTable('billing_charges').set(fields).where('id', '=', result.chargeId).where('status', 'in', ['pending', 'signed']).execute();
  }

  /** The `pending` row, written only if the plan is still as `plan` (the charge was decided on it); else undefined. */
  async #record(plan: OnchainPlan, order: ChargeOrder): Promise<PendingCharge | undefined> {
    const id = billingId('chg');
    const now = new Date(this.#clock.now());
    return this.#db.transaction().execute(async (trx) => {
      const locked = await planById(trx, plan.id, true);
      if (!locked || !sameTerms(locked, plan)) return undefined;
      await trx.insertInto('billing_charges').values({
        id, plan_id: plan.id, period_key: new Date(order.periodKey), kind: order.kind, tier: order.tier, allowance_id: order.allowanceId, amount_micro_usdc: order.amount,
        status: 'pending', created_at: now, updated_at: now,
      }).execute();
      return { id, order };
    });
  }

  /**
   * Abandons the plan's `pending` charge unless it is `keep`, the order about to be charged (which
   * goes on with it). A `pending` row was never signed, so never sent: nothing was charged. The
   * caller holds the charging lock, which every charger takes before it records a charge, so the
   * row's process died before signing (an upgrade `now`'s request, whose order no pass charges);
   * no live process is between recording and signing.
   */
  async abandonUnsent(planId: string, keep: ChargeOrder): Promise<void> {
    await this.#unsentRow(planId, keep);
  }

  /** The plan's `pending` charge if it is `order`; one of another order is abandoned (`abandonUnsent`). */
  async #unsentRow(planId: string, order: ChargeOrder): Promise<PendingCharge | undefined> {
    const row = await this.#db.selectFrom('billing_charges').selectAll().where('plan_id', '=', planId).where('status', '=', 'pending').executeTakeFirst();
    if (!row) return undefined;
    const pending = { id: row.id, order: orderOf(row) };
    if (sameOrder(pending.order, order)) return pending;
    await this.#db.updateTable('billing_charges').set({ status: 'abandoned', updated_at: new Date(this.#clock.now()) }).where('id', '=', row.id).where('status', '=', 'pending').execute();
    return undefined;
  }

  async #signAndSend(plan: OnchainPlan, pending: PendingCharge): Promise<ChargeResult> {
    let signed: SignedCharge;
    try {
      signed = await this.#chain.signCharge(plan.network, { allowanceId: pending.order.allowanceId, funder: plan.funder, amount: pending.order.amount, period: pending.order.periodKey });
    } catch (error) {
      if (!(error instanceof ChargeDeclined)) {
        // Never signed, so never sent: nothing is in flight (a pending row left behind answered
        // CHARGE_IN_PROGRESS to cancel and change until the next renewal).
        await this.#db.updateTable('billing_charges').set({ status: 'abandoned', updated_at: new Date(this.#clock.now()) }).where('id', '=', pending.id).where('status', '=', 'pending').execute();
        throw error;
      }
      return { kind: 'declined', digest: null, reason: error.reason, message: error.message, chargeId: pending.id };
    }
    await this.#db.updateTable('billing_charges').set({ status: 'signed', digest: signed.digest, tx_bytes: signed.txBytes, signature: signed.signature, updated_at: new Date(this.#clock.now()) })
      .where('id', '=', pending.id).where('status', '=', 'pending').execute();
    try {
      return { ...(await this.#chain.submit(plan.network, signed)), chargeId: pending.id };
    } catch (error) {
      if (error instanceof ChainUnavailable) return { kind: 'in_flight', message: error.message, chargeId: pending.id };
      throw error;
    }
  }

  /**
   * The outcome of the plan's charge left signed by a crash (or an outage), whatever its order:
   * undefined when there is none, or when its bytes can never run any more (then `abandoned`:
   * nothing was charged). The outcome stays in flight until the caller writes it to the plan as
   * that order (`settle`): before, the charge of another order than the one being charged (an
   * upgrade `now`, found by the next renewal) was marked settled here and never reached the plan.
   * ChainUnavailable when the chain cannot be asked.
   */
  async recover(plan: OnchainPlan): Promise<RecoveredCharge | undefined> {
    const row = await this.#db.selectFrom('billing_charges').selectAll().where('plan_id', '=', plan.id).where('status', '=', 'signed').executeTakeFirst();
    if (!row) return undefined;
    const signed: SignedCharge = { digest: row.digest!, txBytes: row.tx_bytes!, signature: row.signature! };
    const outcome = await this.#chain.lookup(plan.network, signed.digest) ?? (await this.#chain.isSpent(plan.network, signed) ? null : await this.#chain.submit(plan.network, signed));
    if (outcome === null) {
      await this.#db.updateTable('billing_charges').set({ status: 'abandoned', updated_at: new Date(this.#clock.now()) }).where('id', '=', row.id).execute();
      return undefined;
    }
    return { order: orderOf(row), result: { ...outcome, chargeId: row.id } };
  }
}

/** A charge found signed, its outcome asked of the chain: written to the plan as `order`. */
export interface RecoveredCharge {
  readonly order: ChargeOrder;
  readonly result: SettledCharge;
}

/** An outcome the caller writes to the plan (`settle`, in the same transaction). */
export type SettledCharge = Extract<ChargeResult, { kind: 'succeeded' | 'declined' }>;

interface PendingCharge {
  id: string;
  order: ChargeOrder;
}

function sameOrder(a: ChargeOrder, b: ChargeOrder): boolean {
  return a.kind === b.kind && a.periodKey === b.periodKey && a.amount === b.amount && a.allowanceId === b.allowanceId;
}

function orderOf(row: { kind: string; period_key: Date; amount_micro_usdc: string; tier: string; allowance_id: string }): ChargeOrder {
  return { kind: row.kind as ChargeKind, periodKey: row.period_key.getTime(), amount: BigInt(row.amount_micro_usdc), tier: row.tier, allowanceId: row.allowance_id };
}
