import type { Kysely, Transaction } from 'kysely';
import type { Clock, Logger } from '../core/index.js';
import type { DatabaseSchema } from '../db/index.js';
import { ChainUnavailable, type Chain, type OnchainAllowance } from './chain/index.js';
import type { Charger, ChargeOrder, ChargeResult, RecoveredCharge } from './charger.js';
import { failedChargeEmail, queueEmail, reminderEmail, sendQueuedEmails } from './emails.js';
import { chargeDate, EMAILED_ATTEMPTS, MAX_FAILED_ATTEMPTS, REMINDER_LEAD_MS, RETRY_INTERVAL_MS, SERVICE_RETRY_INTERVAL_MS } from './domain/periods.js';
import { periodPrice } from './domain/prices.js';
import { allowanceOpensAt } from './domain/allowance-window.js';
import type { Mailer } from './mail/index.js';
import { applyTransition, planById, sameTerms, savePlan, stateVersion, type OnchainPlan } from './plan-store.js';
import { writeUpgradeOutcome } from './upgrade-outcome.js';

export interface BillingPassDeps {
  db: Kysely<DatabaseSchema>;
  clock: Clock;
  chain: Chain;
  charger: Charger;
  mailer?: Mailer;
  /** The organizations whose plan changed (this process's authenticator is told at once). */
  organizationChanged?(organizationId: string): void;
  /** Where a plan whose processing threw is reported (with its id); the pass goes on. */
  logger?: Logger;
}

/** What one pass did, per plan outcome (printed by `suigw billing`). */
export interface PassReport {
  charged: number;
  declined: number;
  ended: number;
  cancelled: number;
  reminders: number;
  /** Failures of ours (node down): retried hourly, nothing changed. */
  unavailable: number;
  emailsSent: number;
  emailsFailed: number;
  /** Plans whose processing threw (a bug or a broken setting, logged with the plan's id): skipped, the others processed. */
  failed: number;
}

export type PlanOutcome = 'idle' | 'charged' | 'declined' | 'ended' | 'cancelled' | 'unavailable';

/**
 * One pass over due work: first charges, renewals at period end, daily retries of failed
 * charges, hourly retries of our own failures, cancelled plans running out, revoked
 * allowances, the 7-day balance check; then queued emails go out. Idempotent: a pass run twice
 * at the same time does the work once.
 */
export class BillingPass {
  readonly #deps: BillingPassDeps;

  constructor(deps: BillingPassDeps) {
    this.#deps = deps;
  }

  async run(options: { organizationId?: string } = {}): Promise<PassReport> {
    const report: PassReport = { charged: 0, declined: 0, ended: 0, cancelled: 0, reminders: 0, unavailable: 0, emailsSent: 0, emailsFailed: 0, failed: 0 };
    let query = this.#deps.db.selectFrom('onchain_plans').select('id').where('state', '<>', 'ended');
    if (options.organizationId) query = query.where('organization_id', '=', options.organizationId);
    for (const { id } of await query.orderBy('created_at').orderBy('id').execute()) {
      // One plan that cannot be processed (a bug, a network no longer configured for billing)
      // must not hold back every organization after it: it stays as it was, and is retried next pass.
      try {
        const outcome = await this.processPlan(id);
        if (outcome !== 'idle') report[outcome]++;
        if (await this.#remind(id)) report.reminders++;
      } catch (error) {
        report.failed++;
        this.#deps.logger?.error({ err: error, planId: id }, 'billing: processing a plan failed; the pass goes on with the others');
      }
    }
    if (this.#deps.mailer) {
      const { sent, failed } = await sendQueuedEmails(this.#deps.db, this.#deps.clock, this.#deps.mailer);
      report.emailsSent = sent;
      report.emailsFailed = failed;
    }
    return report;
  }

  /** Whatever is due for one plan now. */
  async processPlan(planId: string): Promise<PlanOutcome> {
    const plan = await planById(this.#deps.db, planId);
    if (!plan || plan.state === 'ended') return 'idle';
    const now = this.#deps.clock.now();
    // A charge left in flight by a crash is settled first, at every pass (not only when the plan is
    // due), and written to the plan as the order it was: an upgrade `now` whose request died after
    // signing is the owner's paid upgrade. Before, the next renewal marked it paid and charged the
    // renewal at the old tier. The node down: nothing is known, the next pass asks again.
    let recovered: RecoveredCharge | undefined;
    try {
      recovered = await this.#deps.charger.recover(plan);
    } catch (error) {
      if (!(error instanceof ChainUnavailable)) throw error;
      return 'unavailable';
    }
    if (recovered) {
      const written = await this.#writeRecovered(plan, recovered, now);
      const next = await this.processPlan(planId);
      return next === 'idle' ? written : next;
    }
    // A charge recorded but never signed was never sent: nothing was charged. One of another order
    // than the one due (an upgrade `now` whose request died before signing) is abandoned here, under
    // the charging lock (no other charger is between recording and signing). Before, only a charge
    // of the plan found it, at the next renewal: until then (up to a month) change and cancel were
    // 409 CHARGE_IN_PROGRESS. The due order's own goes on with its row when the plan is charged.
    await this.#deps.charger.abandonUnsent(plan.id, this.#dueOrder(plan));
    if (plan.state === 'cancel_pending') {
      if (plan.periodEnd !== null && now < plan.periodEnd) return 'idle';
      if (!(await this.#transition(plan, 'period_ended', 'billing', `period ended ${iso(plan.periodEnd ?? now)}`, `${plan.id}:${plan.periodEnd ?? 0}:period_ended`))) return this.processPlan(planId);
      return 'ended';
    }
    if (plan.nextAttemptAt === null || now < plan.nextAttemptAt) return 'idle';
    const order = this.#dueOrder(plan);
    let allowance: OnchainAllowance | null;
    let balance: bigint;
    try {
      allowance = await this.#deps.chain.allowance(plan.network, order.allowanceId);
      balance = allowance ? await this.#deps.chain.addressBalance(plan.network, plan.funder, allowance.coinType) : 0n;
    } catch (error) {
      if (!(error instanceof ChainUnavailable)) throw error;
      return this.#ourFailure(plan, now, error.message);
    }
    if (!allowance) {
      // Spec: "allowance found revoked" → cancel_pending, treated as a cancel at period end: like a
      // cancel it drops a pending change. Found again after a resume (the period unchanged, maybe
      // the same allowance id) it is another revocation: the key names the state it cancels.
      const key = async (trx: Transaction<DatabaseSchema>) => `${plan.id}:revoked:${order.allowanceId}:after:${await stateVersion(trx, plan.id)}`;
      const fields = { nextAttemptAt: plan.periodEnd, pendingTier: null, pendingAllowanceId: null };
      if (!(await this.#transition(plan, 'allowance_revoked', 'billing', `allowance ${order.allowanceId} revoked`, key, { fields }))) return this.processPlan(planId);
      return 'cancelled';
    }
    // A charge the allowance's current window cannot take waits for the next window (seconds, on
    // an anniversary) rather than failing; a charge recorded but never signed goes on first.
    const opensAt = allowanceOpensAt(allowance, order.amount, now);
    if (opensAt !== null && opensAt > now && !(await this.#deps.charger.inFlight(plan.id))) {
      await this.#deps.db.transaction().execute((trx) => saveFields(trx, plan.id, { nextAttemptAt: opensAt }));
      return 'idle';
    }
    // A charge recorded but never signed goes on with its own outcome (a declined charge settles it).
    if (balance < order.amount && !(await this.#deps.charger.inFlight(plan.id))) return this.#declined(plan, order, now, `address balance ${balance} below ${order.amount}`);
    const result = await this.#deps.charger.charge(plan, order);
    // A failure of ours; a charge signed but not known to be sent (`in_flight`) is settled by the
    // next pass's recovery, whatever the retry time.
    if (result.kind === 'unavailable' || result.kind === 'in_flight') return this.#ourFailure(plan, now, result.message);
    // A change or cancel landed while the chain was read, before the charge was recorded: it is
    // ordered before this renewal, which is decided again on the plan as it is now (a change
    // `next_renewal` applies at this renewal; a cancelled plan is not charged).
    if (result.kind === 'superseded') return this.processPlan(planId);
    if (result.kind === 'succeeded') {
      await this.#paid(plan, order, now, result);
      return 'charged';
    }
    return this.#declined(plan, order, now, result.message, result);
  }

  /**
   * Writes a charge found in flight as the order it was: an upgrade as the change `now` would
   * have; the first charge or a renewal as the one now due, which it always is (while a charge is
   * in flight nothing else changes the plan). One that is not can no longer be applied: the
   * plan's processing fails (logged with its id, `failed`, exit 1) and the charge stays in flight,
   * so nothing is charged for the plan until someone looks.
   */
  async #writeRecovered(plan: OnchainPlan, { order, result }: RecoveredCharge, now: number): Promise<PlanOutcome> {
    if (order.kind === 'upgrade') {
      await this.#deps.db.transaction().execute(async (trx) => {
        const locked = (await planById(trx, plan.id, true))!;
        await writeUpgradeOutcome(trx, this.#deps, locked, order, result, '; written by the billing pass, the change\'s process having stopped after signing');
      });
      this.#deps.organizationChanged?.(plan.organizationId);
      return result.kind === 'succeeded' ? 'charged' : 'declined';
    }
    const due = this.#dueOrder(plan);
    if (due.kind !== order.kind || due.periodKey !== order.periodKey) {
      throw new Error(`charge ${result.chargeId} (${order.kind} of ${iso(order.periodKey)}, ${result.kind}) was left in flight, but the plan now owes the ${due.kind} of ${iso(due.periodKey)}`);
    }
    if (result.kind === 'succeeded') {
      await this.#paid(plan, order, now, result);
      return 'charged';
    }
    return this.#declined(plan, order, now, result.message, result);
  }

  /** The charge that is due: the first one, or the renewal of the period at `periodsPaid`, at the tier it renews to. */
  #dueOrder(plan: OnchainPlan): ChargeOrder {
    if (plan.state === 'awaiting_first_charge' || plan.anchorAt === null) {
      return { kind: 'first', periodKey: plan.createdAt, amount: plan.price, tier: plan.tier, allowanceId: plan.allowanceId };
    }
    const tier = plan.pendingTier ?? plan.tier;
    return {
      kind: 'renewal',
      periodKey: chargeDate(plan.anchorAt, plan.interval, plan.periodsPaid),
      amount: periodPrice(tier, plan.interval),
      tier,
      allowanceId: plan.pendingAllowanceId ?? plan.allowanceId,
    };
  }

  async #paid(plan: OnchainPlan, order: ChargeOrder, now: number, charge: Extract<ChargeResult, { kind: 'succeeded' }>): Promise<void> {
    const first = order.kind === 'first';
    // The first charge anchors every later charge date (same day of month, or the anniversary).
    const anchorAt = first ? now : plan.anchorAt!;
    const periodsPaid = first ? 1 : plan.periodsPaid + 1;
    const periodEnd = chargeDate(anchorAt, plan.interval, periodsPaid);
    const fields = (locked: OnchainPlan): Partial<OnchainPlan> => ({
      tier: order.tier as OnchainPlan['tier'], price: order.amount, allowanceId: order.allowanceId,
      // A change saved since this renewal was decided is for the next renewal. (While the charge is in
      // flight a change is 409; this is for a charge found settled already, by an older version.)
      ...(locked.pendingTier === plan.pendingTier && locked.pendingAllowanceId === plan.pendingAllowanceId ? { pendingTier: null, pendingAllowanceId: null } : {}),
      // A pending upgrade's allowance replaces the old one, whose cap no longer applies.
      ...(order.allowanceId === plan.allowanceId ? {} : { allowanceCapId: null }),
      anchorAt, periodsPaid, periodStart: first ? now : order.periodKey, periodEnd, failedAttempts: 0, nextAttemptAt: periodEnd,
    });
    await this.#transition(plan, 'charge_succeeded', 'billing', `charged ${order.amount} micro-USDC, digest ${charge.digest}`, `${plan.id}:${order.kind}:${order.periodKey}:paid`, { fields, charge });
  }

  /** `charge`: the declined charge (none when the balance was found below the price before charging). */
  async #declined(plan: OnchainPlan, order: ChargeOrder, now: number, why: string, charge?: Extract<ChargeResult, { kind: 'declined' }>): Promise<PlanOutcome> {
    if (order.kind === 'first') {
      if (!(await this.#transition(plan, 'charge_failed', 'billing', `first charge failed: ${why}`, `${plan.id}:first:failed`, { fields: { nextAttemptAt: null }, ...(charge ? { charge } : {}) }))) return this.processPlan(plan.id);
      return 'ended';
    }
    const attempt = plan.failedAttempts + 1;
    const final = attempt >= MAX_FAILED_ATTEMPTS;
    const key = `${plan.id}:${order.periodKey}:failed:${attempt}`;
    const written = await this.#transition(plan, final ? 'final_charge_failed' : 'charge_failed', 'billing', `attempt ${attempt} failed: ${why}`, key, {
      fields: { failedAttempts: attempt, nextAttemptAt: final ? null : now + RETRY_INTERVAL_MS },
      ...(EMAILED_ATTEMPTS.includes(attempt) ? { email: { key: `${key}:email`, content: failedChargeEmail(plan, order, attempt, why, final) } } : {}),
      ...(charge ? { charge } : {}),
    });
    if (!written) return this.processPlan(plan.id);
    return final ? 'ended' : 'declined';
  }

  /**
   * Spec: a failure of ours is not a failed charge: retried hourly, no email, no state change.
   * Logged, as the operator's to see: a node down, or the deployment's own configuration (a
   * sponsor key that is not the spender).
   */
  async #ourFailure(plan: OnchainPlan, now: number, reason: string): Promise<PlanOutcome> {
    this.#deps.logger?.warn({ planId: plan.id, reason }, 'billing: the plan\'s charge is retried at the next pass after a failure of ours');
    await this.#deps.db.transaction().execute((trx) => saveFields(trx, plan.id, { nextAttemptAt: now + SERVICE_RETRY_INTERVAL_MS }));
    return 'unavailable';
  }

  /** Seven days before a renewal: the funder's balance is checked, the owner emailed if short (Billing rule 3). */
  async #remind(planId: string): Promise<boolean> {
    const plan = await planById(this.#deps.db, planId);
    if (!plan || plan.state !== 'active' || plan.periodEnd === null || plan.remindedFor === plan.periodEnd) return false;
    const now = this.#deps.clock.now();
    if (now < plan.periodEnd - REMINDER_LEAD_MS || now >= plan.periodEnd) return false;
    const tier = plan.pendingTier ?? plan.tier;
    const price = periodPrice(tier, plan.interval);
    let balance: bigint;
    try {
      balance = await this.#deps.chain.addressBalance(plan.network, plan.funder, this.#deps.chain.settings(plan.network).usdcType);
    } catch (error) {
      if (error instanceof ChainUnavailable) return false;
      throw error;
    }
    const short = balance < price;
    const written = await this.#deps.db.transaction().execute(async (trx) => {
      const locked = (await planById(trx, plan.id, true))!;
      // A cancel or change saved while the balance was read comes first (a cancelled plan was told
      // to top up for a renewal it no longer has): decided again on the plan as it is now.
      if (!sameTerms(locked, plan) || locked.periodEnd !== plan.periodEnd) return false;
      await savePlan(trx, { ...locked, remindedFor: plan.periodEnd });
      if (short) await queueEmail(trx, this.#deps.clock, plan, 'renewal_reminder', `${plan.id}:${plan.periodEnd}:reminder`, reminderEmail(plan, tier, plan.periodEnd!, balance, price));
      return true;
    });
    return written ? short : this.#remind(planId);
  }

  async #transition(
    plan: OnchainPlan,
    trigger: Parameters<typeof applyTransition>[3],
    actor: 'billing',
    reason: string,
    /** A function: a key that depends on the plan as it is under its row lock. */
    idempotencyKey: string | ((trx: Transaction<DatabaseSchema>) => Promise<string>),
    options: {
      fields?: Partial<OnchainPlan> | ((locked: OnchainPlan) => Partial<OnchainPlan>);
      email?: { key: string; content: { subject: string; text: string } };
      /** The charge this writes to the plan: its outcome is settled in the same transaction. */
      charge?: Extract<ChargeResult, { kind: 'succeeded' | 'declined' }>;
    } = {},
  ): Promise<boolean> {
    const { fields = {}, email, charge } = options;
    const written = await this.#deps.db.transaction().execute(async (trx) => {
      const locked = (await planById(trx, plan.id, true))!;
      // A cancel, change or resume saved since `plan` was read (during the pass's chain read) comes
      // first: a decision made on the plan as read is not written (it threw, or recorded a renewal
      // declined at the old price), and the caller makes it again. A charge's outcome always is:
      // while it is in flight the plan cannot change.
      if (!charge && !sameTerms(locked, plan)) return false;
      if (charge) await this.#deps.charger.settle(trx, charge);
      const next = { ...locked, ...(typeof fields === 'function' ? fields(locked) : fields) };
      await savePlan(trx, next);
      const key = typeof idempotencyKey === 'string' ? idempotencyKey : await idempotencyKey(trx);
      // A key recorded already means this decision was written once and the plan has moved on, so
      // writing it again is a bug: thrown, the fields and the charge's outcome are rolled back and
      // the plan's processing fails visibly (counted `failed`), rather than reported done unwritten.
      if (!(await applyTransition(trx, this.#deps.clock, next, trigger, { actor, reason, idempotencyKey: key }))) {
        throw new Error(`plan ${plan.id}: ${trigger} (${reason}) was recorded already under ${key}; nothing written`);
      }
      if (email) await queueEmail(trx, this.#deps.clock, next, 'charge_failed', email.key, email.content);
      return true;
    });
    if (written) this.#deps.organizationChanged?.(plan.organizationId);
    return written;
  }
}

/**
 * Writes `fields` over the plan as it is now (row locked): the pass's plan was read before its
 * slow chain reads, and a change or cancel saved meanwhile must not be written back over.
 */
async function saveFields(trx: Transaction<DatabaseSchema>, planId: string, fields: Partial<OnchainPlan>): Promise<void> {
  const locked = (await planById(trx, planId, true))!;
  await savePlan(trx, { ...locked, ...fields });
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
