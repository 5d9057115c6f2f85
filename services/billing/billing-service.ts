import { isValidSuiAddress, normalizeStructTag, normalizeSuiAddress, toBase64 } from '@mysten/sui/utils';
import type { Kysely, Transaction } from 'kysely';
import { ApiError, retryAfter, type Clock, type Network } from '../core/index.js';
import type { DatabaseSchema } from '../db/index.js';
import { ChainUnavailable, TransactionBuildFailed, type Chain } from './chain/index.js';
import { Charger } from './charger.js';
import type { ChargingLock } from './charging-lock.js';
import { PAID_TIERS, isPaidTier, MONTHLY_PRICE, periodPrice, tierRank, type Interval, type PaidTier } from './domain/prices.js';
import { proratedUpgradeCharge } from './domain/proration.js';
import { BillingPass } from './billing-pass.js';
import { activatePlan, applyTransition, billingId, latestPlanOf, livePlanOf, planById, savePlan, type OnchainPlan } from './plan-store.js';
import { planView, type PlanView } from './views.js';
import { writeUpgradeOutcome } from './upgrade-outcome.js';
import { verifyAllowance, verifyAllowanceCap } from './verify-allowance.js';

/** An upgrade `now` whose charge was signed but could not be sent (409 CHARGE_IN_PROGRESS). */
const UPGRADE_IN_FLIGHT = 'The upgrade\'s charge was signed but sending it failed, so it may have been taken (never twice). The next billing pass settles it and writes it to the plan: paid, the new tier from now; failed, the change applies at the next renewal. Until then change and cancel answer 409.';

/** How long activate waits for another billing process's charging lock before leaving the first charge to a pass. */
export const FIRST_CHARGE_LOCK_WAIT_MS = 30_000;

/** Sui's protocol version from which mainnet has allowances (Billing rule 2). */
export const MAINNET_ALLOWANCE_PROTOCOL_VERSION = 138;

export interface BillingServiceDeps {
  db: Kysely<DatabaseSchema>;
  clock: Clock;
  chain: Chain;
  /** Held around every charge (one signer for the sponsor key's gas coin). */
  lock: ChargingLock;
  /** This process's authenticator hears of the plan change before the route replies. */
  organizationChanged?(organizationId: string): void;
}

export interface PrepareInput {
  network: Network;
  tier: string;
  interval: Interval;
  funderAddress: string;
  prefundPeriods: number;
  coinType?: string;
}

export interface ActivateInput {
  network: Network;
  tier: string;
  interval: Interval;
  allowanceId: string;
  allowanceCapId?: string;
  notifyEmail?: string;
}

export interface ChangeInput {
  tier: string;
  when: 'next_renewal' | 'now';
  allowanceId?: string;
}

/** What checking an upgrade `now` answers when every check passed and its charge is due. */
const CHARGE_DUE = Symbol('charge due');

/** The billing API's logic (routes are thin): prepare, activate, read, change, cancel. */
export class BillingService {
  readonly #deps: BillingServiceDeps;
  readonly #charger: Charger;

  constructor(deps: BillingServiceDeps) {
    this.#deps = deps;
    this.#charger = new Charger({ db: deps.db, chain: deps.chain, clock: deps.clock });
  }

  get charger(): Charger {
    return this.#charger;
  }

  /** GET /v1/billing/plans */
  async plans(): Promise<PlansCatalog> {
    const { chain } = this.#deps;
    const networks = await Promise.all(chain.networks().map(async (network) => {
      const settings = chain.settings(network);
      const enabled = await this.#enabled(network).then(() => true, () => false);
      return {
        network, enabled, spender: chain.spender, treasury: settings.treasury, packageId: settings.packageId, configId: settings.configId,
        acceptedCoins: [{ coinType: settings.usdcType, symbol: 'USDC', decimals: 6 }],
      };
    }));
    return {
      networks,
      tiers: PAID_TIERS.map((tier) => ({ tier, monthlyPrice: MONTHLY_PRICE[tier].toString(), annualPrice: periodPrice(tier, 'year').toString() })),
      prefundPeriods: { min: 0, max: 12, default: 1 },
    };
  }

  /** POST /v1/billing/onchain/prepare: the one transaction the funder signs. */
  async prepare(organizationId: string, input: PrepareInput): Promise<PreparedTransaction> {
    const tier = this.#paidTier(input.tier);
    await this.#enabled(input.network);
    const settings = this.#deps.chain.settings(input.network);
    if (input.coinType !== undefined && !sameCoinType(input.coinType, settings.usdcType)) throw new ApiError('COIN_NOT_ACCEPTED');
    if (!isValidSuiAddress(normalizeSuiAddress(input.funderAddress)) || !/^0x[0-9a-fA-F]{1,64}$/.test(input.funderAddress)) throw new ApiError('INVALID_FUNDER_ADDRESS');
    const funder = normalizeSuiAddress(input.funderAddress);
    if (funder === this.#deps.chain.spender) throw new ApiError('INVALID_FUNDER_ADDRESS', { message: 'The service cannot fund its own plan.' });
    await this.#checkPaymentMethod(organizationId);
    const live = await livePlanOf(this.#deps.db, organizationId);
    if (live) this.#checkReplacement(live, tier, input.interval, input.network);
    const price = periodPrice(tier, input.interval);
    const now = this.#deps.clock.now();
    let txBytes: Uint8Array;
    try {
      txBytes = await this.#deps.chain.buildPrepare(input.network, {
        funder, organization: organizationId, periodLimit: price, windowMonths: input.interval === 'year' ? 12 : 1,
        prefund: price * BigInt(input.prefundPeriods), startMs: 0, expirationMs: null,
      });
    } catch (error) {
      if (error instanceof TransactionBuildFailed) throw new ApiError('TX_BUILD_FAILED', { message: error.message });
      if (error instanceof ChainUnavailable) throw new ApiError('BALANCE_UNAVAILABLE', { message: 'The network is unreachable; try again.' });
      throw error;
    }
    return {
      txBytes: toBase64(txBytes), network: input.network, tier, interval: input.interval, funderAddress: funder,
      allowance: { name: organizationId, coinType: settings.usdcType, periodLimit: price.toString(), window: input.interval === 'year' ? '12_months' : 'calendar_month', spender: this.#deps.chain.spender, app: `${settings.packageId}::billing::BillingApp` },
      prefund: (price * BigInt(input.prefundPeriods)).toString(),
      preparedAt: new Date(now).toISOString(),
    };
  }

  /** POST /v1/billing/onchain/activate: verify on chain, start the plan, take the first charge. */
  async activate(organizationId: string, input: ActivateInput): Promise<PlanView> {
    const tier = this.#paidTier(input.tier);
    await this.#enabled(input.network);
    await this.#checkPaymentMethod(organizationId);
    const { db, clock, chain } = this.#deps;
    const live = await livePlanOf(db, organizationId);
    // A live plan changes tier through `change`; activate only resumes a cancelled one (rule 7).
    if (live && live.state !== 'cancel_pending') throw new ApiError('ONCHAIN_SUBSCRIPTION_EXISTS');
    if (live) this.#checkReplacement(live, tier, input.interval, input.network);
    const price = periodPrice(tier, input.interval);
    const allowanceId = normalizeSuiAddress(input.allowanceId);
    const allowance = verifyAllowance(await this.#readAllowance(input.network, allowanceId), {
      settings: chain.settings(input.network), spender: chain.spender, organizationId, price, interval: input.interval, now: clock.now(),
      ...(live ? { funder: live.funder } : {}),
    });
    if (input.allowanceCapId !== undefined) verifyAllowanceCap(await this.#readAllowanceCap(input.network, normalizeSuiAddress(input.allowanceCapId)), allowance);
    if (live) return this.#resume(live, allowanceId, input.allowanceCapId ? normalizeSuiAddress(input.allowanceCapId) : null, input.notifyEmail);
    const plan: OnchainPlan = {
      id: billingId('plan'), organizationId, network: input.network, tier, interval: input.interval, state: 'awaiting_first_charge',
      allowanceId, allowanceCapId: input.allowanceCapId ? normalizeSuiAddress(input.allowanceCapId) : null, funder: allowance.funder, price,
      pendingTier: null, pendingAllowanceId: null, anchorAt: null, periodsPaid: 0, periodStart: null, periodEnd: null,
      failedAttempts: 0, nextAttemptAt: clock.now(), remindedFor: null, notifyEmail: input.notifyEmail ?? null, createdAt: clock.now(),
    };
    try {
      await db.transaction().execute(async (trx) => {
        // Again under the organization row's lock, which a prepaid grant takes too: one booked
        // during the chain reads above saw no plan yet (rule 8: no plan beside prepaid credit).
        await this.#checkPaymentMethod(organizationId, trx);
        await activatePlan(trx, clock, plan, `allowance ${allowanceId} verified on chain`);
      });
    } catch (error) {
      if (isUniqueViolation(error, 'onchain_plans_allowance')) throw new ApiError('ALLOWANCE_IN_USE');
      if (isUniqueViolation(error, 'onchain_plans_live')) throw new ApiError('ONCHAIN_SUBSCRIPTION_EXISTS');
      throw error;
    }
    this.#deps.organizationChanged?.(organizationId);
    return this.#takeFirstCharge(plan.id, organizationId);
  }

  /**
   * "First charge taken within about a minute": at once, by the same steps as the billing pass,
   * waiting up to FIRST_CHARGE_LOCK_WAIT_MS for a billing process that holds the charging lock (a
   * pass holds it for seconds). Under Kubernetes each pass is one organization's, so no other
   * organization's pass takes this charge: left to its own hourly CronJob, it waited up to an hour.
   * A first charge that failed ended the plan (nothing was ever paid): the answer is still this
   * plan, `ended`, with its declined charge, not a 404 for a plan the caller just set up.
   */
  async #takeFirstCharge(planId: string, organizationId: string): Promise<PlanView> {
    const { db, clock, chain } = this.#deps;
    await this.#deps.lock.runWithin(FIRST_CHARGE_LOCK_WAIT_MS, () => new BillingPass({ db, clock, chain, charger: this.#charger }).processPlan(planId));
    this.#deps.organizationChanged?.(organizationId);
    return this.#answer((await planById(db, planId))!);
  }

  /** GET /v1/billing/onchain: the live plan, else the last one, ended (its owner sees why); 404 if there never was one. */
  async current(organizationId: string): Promise<PlanView> {
    const plan = await this.#latestPlan(organizationId);
    return planView(this.#deps.db, plan, await this.#requiredFunderBalance(plan));
  }

  /**
   * The answer of a request that wrote the plan (activate, change, cancel): a balance that cannot
   * be read then is unknown (null), not 503 BALANCE_UNAVAILABLE, which says nothing was done
   * (for an upgrade `now`, nothing was charged) when it was.
   */
  async #answer(plan: OnchainPlan): Promise<PlanView> {
    return planView(this.#deps.db, plan, await this.#funderBalance(plan));
  }

  async #answerFor(organizationId: string): Promise<PlanView> {
    return this.#answer(await this.#latestPlan(organizationId));
  }

  async #latestPlan(organizationId: string): Promise<OnchainPlan> {
    const plan = await latestPlanOf(this.#deps.db, organizationId);
    if (!plan) throw new ApiError('ONCHAIN_SUBSCRIPTION_NOT_FOUND');
    return plan;
  }

  /** POST /v1/billing/onchain/change (Billing rules 5 and 6). */
  async change(organizationId: string, input: ChangeInput): Promise<PlanView> {
    if (input.when !== 'now') return this.#change(organizationId, input) as Promise<PlanView>;
    // Checked first without the charging lock, which is one per deployment: the plan, the
    // allowance and the balance are read from the chain, and while one organization's request
    // waited on those reads under the lock, every other organization's upgrade `now` was 409 and
    // the billing pass was skipped. Only an upgrade found due a charge takes the lock.
    const checked = await this.#change(organizationId, input, 'check');
    if (checked !== CHARGE_DUE) return checked;
    // Under the lock it is decided again on the plan as it is then: of two submitted together
    // (a double click, two tabs), the second read the plan before the first was charged and
    // charged the upgrade again under its own allowance; now it finds the upgrade made (400
    // PLAN_UNCHANGED), as one that finds a cancel made finds 409 PLAN_CANCELLED.
    const view = await this.#deps.lock.tryRun(() => this.#change(organizationId, input) as Promise<PlanView>);
    if (view === undefined) throw new ApiError('CHARGE_IN_PROGRESS', { ...retryAfter(60) });
    return view;
  }

  /**
   * `change`. `check` (an upgrade `now`, before the charging lock) stops at the charge, answering
   * CHARGE_DUE when every check passed. Otherwise an upgrade `now` is charged: its caller holds the charging lock.
   */
  async #change(organizationId: string, input: ChangeInput, mode: 'check' | 'apply' = 'apply'): Promise<PlanView | typeof CHARGE_DUE> {
    const { db, clock, chain } = this.#deps;
    const plan = await livePlanOf(db, organizationId);
    if (!plan) throw new ApiError('ONCHAIN_SUBSCRIPTION_NOT_FOUND');
    if (plan.state === 'cancel_pending') throw new ApiError('PLAN_CANCELLED');
    if (plan.state === 'awaiting_first_charge' || (await this.#charger.inFlight(plan.id))) throw new ApiError('CHARGE_IN_PROGRESS', { ...retryAfter(60) });
    const tier = this.#paidTier(input.tier);
    if (tier === plan.tier && plan.pendingTier === null) throw new ApiError('PLAN_UNCHANGED');
    const upgrade = tierRank(tier) > tierRank(plan.tier);
    if (!upgrade) {
      if (input.when === 'now') throw new ApiError('DOWNGRADE_NEEDS_RENEWAL');
      await this.#saveChange(plan, tier === plan.tier ? { pendingTier: null, pendingAllowanceId: null } : { pendingTier: tier, pendingAllowanceId: null }, `${tier} from the next renewal`);
      return this.#answerFor(organizationId);
    }
    // A pending upgrade's allowance was approved by the funder for this plan: without a new one,
    // the change is checked against it (its limit decides, as for a downgrade: rule 5).
    const allowanceId = input.allowanceId ? normalizeSuiAddress(input.allowanceId) : plan.pendingAllowanceId;
    if (!allowanceId) throw new ApiError('ALLOWANCE_NOT_FOUND', { message: 'An upgrade needs the allowanceId of a new allowance for the new tier (prepare again).' });
    // The plan's own allowance too is checked, not refused: usually its limit is the current
    // price (ALLOWANCE_LIMIT_TOO_LOW below), but a lowered pending upgrade paid under a higher
    // allowance leaves the plan on one that covers more.
    const price = periodPrice(tier, plan.interval);
    verifyAllowance(await this.#readAllowance(plan.network, allowanceId), {
      settings: chain.settings(plan.network), spender: chain.spender, organizationId, price, interval: plan.interval, now: clock.now(), funder: plan.funder,
    });
    await this.#checkAllowanceFree(plan.network, allowanceId, plan.id);
    if (input.when === 'next_renewal') {
      await this.#saveChange(plan, { pendingTier: tier, pendingAllowanceId: allowanceId }, `${tier} from the next renewal`);
      return this.#answerFor(organizationId);
    }
    const now = clock.now();
    const { charge } = proratedUpgradeCharge({ newPrice: price, oldPrice: plan.price, periodStart: plan.periodStart ?? now, periodEnd: plan.periodEnd ?? now, now });
    // As the billing pass does: a balance below the charge is a failed charge (rule 6), decided
    // before anything is recorded or built (a charge that cannot be built is not a node outage).
    if (await this.#requiredFunderBalance(plan, 'The balance cannot be read right now; nothing was charged. Try again.') < charge) {
      await this.#saveChange(plan, { pendingTier: tier, pendingAllowanceId: allowanceId }, `upgrade to ${tier}: address balance below the ${charge} micro-USDC charge; applies at the next renewal`);
      return this.#answerFor(organizationId);
    }
    if (mode === 'check') return CHARGE_DUE;
    const order = { kind: 'upgrade', periodKey: now, amount: charge, tier, allowanceId } as const;
    const result = await this.#charger.charge(plan, order);
    if (result.kind === 'unavailable') throw new ApiError('BALANCE_UNAVAILABLE', { message: 'The network is unreachable; nothing was charged. Try again.', ...retryAfter(60) });
    // Signed, then sending failed: it may have been taken (the chain may even have run it), so
    // "nothing was charged" would be false, and a retry cannot charge it again (it is in flight).
    if (result.kind === 'in_flight') throw new ApiError('CHARGE_IN_PROGRESS', { message: UPGRADE_IN_FLIGHT, ...retryAfter(60) });
    // A cancel or another change landed while the allowance and balance were read: nothing was
    // charged; decided again on the plan as it is now (a cancelled plan: 409 PLAN_CANCELLED).
    if (result.kind === 'superseded') return this.#change(organizationId, input);
    await db.transaction().execute(async (trx) => {
      const locked = (await livePlanOf(trx, organizationId, true))!;
      await writeUpgradeOutcome(trx, { clock, charger: this.#charger }, locked, order, result);
    });
    this.#deps.organizationChanged?.(organizationId);
    return this.#answerFor(organizationId);
  }

  /** POST /v1/billing/onchain/cancel */
  async cancel(organizationId: string): Promise<PlanView> {
    const { db, clock } = this.#deps;
    const plan = await livePlanOf(db, organizationId);
    if (!plan) throw new ApiError('ONCHAIN_SUBSCRIPTION_NOT_FOUND');
    if (plan.state === 'cancel_pending') throw new ApiError('PLAN_CANCELLED');
    if (plan.state === 'awaiting_first_charge' || (await this.#charger.inFlight(plan.id))) throw new ApiError('CHARGE_IN_PROGRESS', { ...retryAfter(60) });
    await db.transaction().execute(async (trx) => {
      const locked = (await livePlanOf(trx, organizationId, true))!;
      // Under the row lock: of two cancels at once, the second finds the plan cancelled; a charge
      // recorded since the check above (the charger records under this lock) is waited for.
      if (locked.state === 'cancel_pending') throw new ApiError('PLAN_CANCELLED');
      if (await this.#charger.inFlight(plan.id, trx)) throw new ApiError('CHARGE_IN_PROGRESS', { ...retryAfter(60) });
      // One key per cancel: a plan resumed and cancelled again in the same period (rule 7) is
      // cancelled again (a key per period made the second cancel a silent no-op, and the plan renewed).
      const cancelled = await applyTransition(trx, clock, locked, 'cancel', { actor: 'owner', reason: 'cancelled through the API', idempotencyKey: `${plan.id}:cancel:${clock.now()}` });
      if (!cancelled) throw new Error(`plan ${plan.id}: a cancel at ${clock.now()} was recorded already; nothing written`);
      // A past-due plan keeps the time of its next retry: resumed, it retries then (rule 7, #resume).
      await savePlan(trx, { ...cancelled, pendingTier: null, pendingAllowanceId: null, nextAttemptAt: locked.state === 'past_due' ? locked.nextAttemptAt : locked.periodEnd });
    });
    this.#deps.organizationChanged?.(organizationId);
    return this.#answerFor(organizationId);
  }

  /** Rule 7: setting up the same plan again resumes a cancelled one, with the allowance just verified. */
  async #resume(plan: OnchainPlan, allowanceId: string, allowanceCapId: string | null, notifyEmail: string | undefined): Promise<PlanView> {
    const { db, clock } = this.#deps;
    if (allowanceId !== plan.allowanceId) await this.#checkAllowanceFree(plan.network, allowanceId, plan.id);
    const unstarted = await db.transaction().execute(async (trx) => {
      const locked = (await livePlanOf(trx, plan.organizationId, true))!;
      // Cancelled before its first charge was taken (its allowance found revoked first), nothing was
      // ever paid: awaiting its first charge again, taken at once as at activation. It resumed
      // `active` with no period and no charge ever due: paid limits, never charged.
      const never = locked.anchorAt === null;
      // Cancelled while past due, the period is still unpaid: past_due again, its retries where they
      // stopped (it resumed `active`, and its 7th failure was a transition the table does not have).
      const unpaid = locked.failedAttempts > 0;
      await applyTransition(trx, clock, locked, never ? 'resume_unstarted' : unpaid ? 'resume_unpaid' : 'resume', { actor: 'owner', reason: `resumed with allowance ${allowanceId}`, idempotencyKey: `${plan.id}:resume:${clock.now()}` });
      // A cap id names its own allowance: with another allowance, the old one's cap no longer applies.
      const capId = allowanceCapId ?? (allowanceId === locked.allowanceId ? locked.allowanceCapId : null);
      // The plan set up again is the tier asked for, paid by the allowance just verified: a pending
      // change (one left by a revocation before revocations dropped it, as a cancel does) is not
      // resumed. Kept, a pending upgrade whose allowance was revoked made every renewal find it revoked.
      await savePlan(trx, {
        ...locked, allowanceId, allowanceCapId: capId, pendingTier: null, pendingAllowanceId: null, notifyEmail: notifyEmail ?? locked.notifyEmail,
        nextAttemptAt: never ? clock.now() : unpaid ? locked.nextAttemptAt : locked.periodEnd,
      });
      return never;
    });
    this.#deps.organizationChanged?.(plan.organizationId);
    if (unstarted) return this.#takeFirstCharge(plan.id, plan.organizationId);
    return this.#answerFor(plan.organizationId);
  }

  /** A change that charges nothing, written under the plan row's lock. */
  async #saveChange(plan: OnchainPlan, fields: Partial<OnchainPlan>, reason: string): Promise<void> {
    const { db, clock } = this.#deps;
    await db.transaction().execute(async (trx) => {
      const locked = (await livePlanOf(trx, plan.organizationId, true))!;
      // Under the row lock, where the charger records a charge: a change that lands while a
      // renewal is being charged waits for it (it was dropped when that renewal was paid).
      if (await this.#charger.inFlight(plan.id, trx)) throw new ApiError('CHARGE_IN_PROGRESS', { ...retryAfter(60) });
      const next = { ...locked, ...fields };
      await savePlan(trx, next);
      if (locked.state === 'active') {
        await applyTransition(trx, clock, next, 'tier_changed', { actor: 'owner', reason, idempotencyKey: `${plan.id}:change:${clock.now()}:${next.tier}:${next.pendingTier ?? ''}` });
      }
    });
    this.#deps.organizationChanged?.(plan.organizationId);
  }

  #paidTier(tier: string): PaidTier {
    if (!isPaidTier(tier)) throw new ApiError('PLAN_NOT_AVAILABLE', { message: `On-chain plans: ${PAID_TIERS.join(', ')}. Enterprise stays on card.` });
    return tier;
  }

  /** Rule 2: testnet always; mainnet once the chain has allowances (protocol version 138). */
  async #enabled(network: Network): Promise<void> {
    const { chain } = this.#deps;
    if (!chain.networks().includes(network)) throw new ApiError('ONCHAIN_BILLING_DISABLED', { message: `On-chain billing is not set up on ${network}.` });
    if (network !== 'mainnet') return;
    let version: number;
    try {
      version = await chain.protocolVersion(network);
    } catch {
      throw new ApiError('ONCHAIN_BILLING_DISABLED', { message: 'The mainnet protocol version is unknown right now.' });
    }
    if (version < MAINNET_ALLOWANCE_PROTOCOL_VERSION) {
      throw new ApiError('ONCHAIN_BILLING_DISABLED', { message: `Mainnet allowances arrive with protocol version ${MAINNET_ALLOWANCE_PROTOCOL_VERSION} (now ${version}).` });
    }
  }

  /**
   * Rules 1 and 8: one payment method; prepaid credits are spent before a plan starts. In `trx`,
   * the organization row is locked (as a prepaid grant locks it) for the plan written after.
   */
  async #checkPaymentMethod(organizationId: string, trx?: Transaction<DatabaseSchema>): Promise<void> {
    let query = (trx ?? this.#deps.db).selectFrom('organizations').select(['card_subscription_active', 'prepaid_micro_usd']).where('id', '=', organizationId);
    if (trx) query = query.forUpdate();
    const organization = await query.executeTakeFirst();
    if (!organization) throw new ApiError('ORGANIZATION_NOT_FOUND');
    if (organization.card_subscription_active) throw new ApiError('STRIPE_SUBSCRIPTION_ACTIVE');
    if (BigInt(organization.prepaid_micro_usd) > 0n) throw new ApiError('PREPAID_BALANCE_PRESENT');
  }

  /**
   * With a live plan, prepare/activate only resume it (rule 7) or prepare an upgrade (rule 5), on
   * the plan's network: its allowance is an object of that chain, where every charge reads it.
   */
  #checkReplacement(live: OnchainPlan, tier: PaidTier, interval: Interval, network: Network): void {
    const same = live.tier === tier && live.interval === interval && live.network === network;
    if (live.state === 'cancel_pending') {
      if (!same) throw new ApiError('PLAN_UNCHANGED', { message: `A cancelled plan resumes only as the same tier and interval, on its network (${live.network}); set up another after it ends.` });
      return;
    }
    if (same || live.interval !== interval || live.network !== network) throw new ApiError('ONCHAIN_SUBSCRIPTION_EXISTS', { ...(live.network !== network ? { message: `The organization's plan is on ${live.network}; an upgrade is prepared there.` } : {}) });
  }

  /** The funder's USDC address balance, what an allowance can draw from; null when the node cannot be read. */
  async #funderBalance(plan: OnchainPlan): Promise<bigint | null> {
    try {
      return await this.#deps.chain.addressBalance(plan.network, plan.funder, this.#deps.chain.settings(plan.network).usdcType);
    } catch (error) {
      if (error instanceof ChainUnavailable) return null;
      throw error;
    }
  }

  /** The funder's balance for a request that has written nothing: 503 BALANCE_UNAVAILABLE (with `message` when given) when it cannot be read. */
  async #requiredFunderBalance(plan: OnchainPlan, message?: string): Promise<bigint> {
    const balance = await this.#funderBalance(plan);
    if (balance === null) throw new ApiError('BALANCE_UNAVAILABLE', { ...(message ? { message } : {}), ...retryAfter(60) });
    return balance;
  }

  async #readAllowance(network: Network, allowanceId: string) {
    return this.#readChain(() => this.#deps.chain.allowance(network, allowanceId), 'The allowance cannot be read right now; try again.');
  }

  async #readAllowanceCap(network: Network, capId: string) {
    return this.#readChain(() => this.#deps.chain.allowanceCap(network, capId), 'The allowance cap cannot be read right now; try again.');
  }

  /** A chain read for the owner's request: the node unreachable is 503 BALANCE_UNAVAILABLE with `message`. */
  async #readChain<T>(read: () => Promise<T>, message: string): Promise<T> {
    try {
      return await read();
    } catch (error) {
      if (error instanceof ChainUnavailable) throw new ApiError('BALANCE_UNAVAILABLE', { message, ...retryAfter(60) });
      throw error;
    }
  }

  async #checkAllowanceFree(network: Network, allowanceId: string, planId: string): Promise<void> {
    const other = await this.#deps.db.selectFrom('onchain_plans').select('id').where('network', '=', network)
      .where((eb) => eb.or([eb('allowance_id', '=', allowanceId), eb('pending_allowance_id', '=', allowanceId)]))
      .where('state', '<>', 'ended').where('id', '<>', planId).executeTakeFirst();
    if (other) throw new ApiError('ALLOWANCE_IN_USE');
  }
}

function isUniqueViolation(error: unknown, constraint: string): boolean {
  const record = error as { code?: string; constraint?: string; message?: string };
  return record?.code === '23505' && (record.constraint === constraint || (record.message ?? '').includes(constraint));
}

export interface PlansCatalog {
  networks: { network: Network; enabled: boolean; spender: string; treasury: string; packageId: string; configId: string; acceptedCoins: { coinType: string; symbol: string; decimals: number }[] }[];
  tiers: { tier: PaidTier; monthlyPrice: string; annualPrice: string }[];
  prefundPeriods: { min: number; max: number; default: number };
}

export interface PreparedTransaction {
  txBytes: string;
  network: Network;
  tier: PaidTier;
  interval: Interval;
  funderAddress: string;
  allowance: { name: string; coinType: string; periodLimit: string; window: 'calendar_month' | '12_months'; spender: string; app: string };
  prefund: string;
  preparedAt: string;
}

/** Whether `given` names `accepted` (any spelling of its address); a string that is no type at all names nothing. */
function sameCoinType(given: string, accepted: string): boolean {
  try {
    return normalizeStructTag(given) === normalizeStructTag(accepted);
  } catch {
    return false;
  }
}
