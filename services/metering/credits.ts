import { sql, type Kysely } from 'kysely';
import type { Clock, Logger } from '../core/index.js';
import type { DatabaseSchema } from '../db/index.js';
import { MICRO_USD_PER_CREDIT } from '../plans/index.js';
import { planOfRow, type Plan } from '../plans/plan-table.js';
import { creditPeriod } from './period.js';
import type { FlushedUsage } from './usage.js';

export interface CreditBalance {
  /** Credits left this period (never below 0 on the wire). */
  remaining: number;
  replenishAtMs: number;
}

interface Account {
  periodStartMs: number;
  replenishAtMs: number;
  /**
   * Monthly credits of the organization's plan, plus the prepaid balance in credits, plus the
   * over-plan credits of the period already in PostgreSQL: flushes paid for those from the prepaid
   * balance (or it could not pay them), so they must not be taken from the balance a second time. Thus
   * remaining = max(0, monthly − spent) + prepaid balance, less what is not yet flushed beyond
   * the monthly credits. Balance and total are read by one statement (one snapshot): a flush adds
   * usage and deducts its payment in one transaction.
   */
  allowance: number;
  /** Credits of this period in PostgreSQL that this process did not write (other gateways). */
  othersSpent: number;
  /** Credits this process charged (or holds reserved) this period. */
  charged: number;
  /** Of `charged`, what this process has written to PostgreSQL. */
  flushed: number;
}

export interface CreditLedgerOptions {
  db: Kysely<DatabaseSchema>;
  clock: Clock;
  logger: Logger;
}

/**
 * Monthly credits per organization without a database write per request: each process keeps
 * what it charged in memory, the usage recorder writes it in batches, and after each flush the
 * ledger re-reads the period's total so other processes' charges count too. Over-spend across
 * processes is bounded by what the other processes charge between two flushes (docs/metering.md).
 * Admission reserves the request's price, so concurrent requests of one process never over-spend.
 * Credits beyond the plan's monthly credits come from the prepaid balance, which the usage
 * recorder's flush deducts (`prepaid.ts`); the ledger reads the balance as the flushes left it.
 * The plan is read from the organization's row with the balance (`planOfRow`, as the flush pays
 * by), never taken from a caller: a connection opened before a plan change would carry the old
 * one, and one organization has one plan for all its requests.
 */
export class CreditLedger {
  readonly #options: CreditLedgerOptions;
  readonly #accounts = new Map<string, Account>();
  readonly #loading = new Map<string, Promise<Account>>();

  constructor(options: CreditLedgerOptions) {
    this.#options = options;
  }

  /** Takes `credits` from the organization's balance when it has them (0 always); otherwise nothing. */
  async reserve(organizationId: string, credits: number): Promise<{ ok: boolean; balance: CreditBalance }> {
    return take(this.#current(organizationId) ?? (await this.#account(organizationId)), credits);
  }

  /** `reserve` without waiting when the organization's account is loaded and current; undefined (nothing taken) otherwise. */
  reserveNow(organizationId: string, credits: number): { ok: boolean; balance: CreditBalance } | undefined {
    const account = this.#current(organizationId);
    return account && take(account, credits);
  }

  /** Whether `reserveNow` would answer. */
  isCurrent(organizationId: string): boolean {
    return this.#current(organizationId) !== undefined;
  }

  /** Corrects a reservation by what the request was finally charged (may be negative). */
  adjust(organizationId: string, delta: number): CreditBalance | undefined {
    const account = this.#accounts.get(organizationId);
    if (!account) return undefined;
    account.charged += delta;
    return balanceOf(account);
  }

  async balance(organizationId: string): Promise<CreditBalance> {
    return balanceOf(await this.#account(organizationId));
  }

  /**
   * After the usage recorder wrote `written`: count it as flushed, then re-read the period's
   * totals and the plans of every organization this process serves (one query): a plan changed
   * since applies from here on.
   */
  async reconcile(written: readonly FlushedUsage[]): Promise<void> {
    for (const usage of written) {
      const account = this.#accounts.get(usage.organizationId);
      if (account && usage.minute >= account.periodStartMs && usage.minute < account.replenishAtMs) account.flushed += usage.credits;
    }
    const ids = [...this.#accounts.keys()];
    if (ids.length === 0) return;
    try {
      const totals = await this.#read(ids, creditPeriod(this.#options.clock.now()).startMs);
      for (const [id, total] of totals) {
        const account = this.#accounts.get(id);
        if (!account || account.periodStartMs !== total.periodStartMs) continue;
        account.othersSpent = Math.max(0, total.spent - account.flushed);
        account.allowance = allowanceOf(total);
      }
    } catch (error) {
      this.#options.logger.warn({ err: error }, 'credit reconciliation failed; using the last totals');
    }
  }

  /** The organization's account when it is loaded and of the current period (the hot path: no await). */
  #current(organizationId: string): Account | undefined {
    const current = this.#accounts.get(organizationId);
    if (!current) return undefined;
    const now = this.#options.clock.now();
    if (now >= current.replenishAtMs || now < current.periodStartMs) return undefined;
    return current;
  }

  async #account(organizationId: string): Promise<Account> {
    const current = this.#current(organizationId);
    if (current) return current;
    const now = this.#options.clock.now();
    const loading = this.#loading.get(organizationId);
    if (loading) return loading;
    const load = this.#load(organizationId, now).finally(() => this.#loading.delete(organizationId));
    this.#loading.set(organizationId, load);
    return load;
  }

  async #load(organizationId: string, now: number): Promise<Account> {
    const period = creditPeriod(now);
    const total = (await this.#read([organizationId], period.startMs)).get(organizationId);
    const account: Account = {
      periodStartMs: period.startMs,
      replenishAtMs: period.replenishAtMs,
      // An organization without a row (deleted) has no plan and nothing to spend.
      allowance: total ? allowanceOf(total) : 0,
      othersSpent: total?.spent ?? 0,
      charged: 0,
      flushed: 0,
    };
    this.#accounts.set(organizationId, account);
    return account;
  }

  async #read(
    organizationIds: readonly string[],
    periodStartMs: number,
  ): Promise<Map<string, OrganizationTotal>> {
    const rows = await this.#options.db
      .selectFrom('organizations as o')
      .leftJoin('usage_minutes as u', (join) =>
        join.onRef('u.organization_id', '=', 'o.id').on('u.minute', '>=', new Date(periodStartMs)),
      )
      .select([
        'o.id', 'o.tier', 'o.subscription_plan', 'o.subscription_status', 'o.prepaid_micro_usd',
        sql<string>`coalesce(sum(u.credits), 0)`.as('spent'),
      ])
      .where('o.id', 'in', organizationIds)
      .groupBy(['o.id', 'o.tier', 'o.subscription_plan', 'o.subscription_status', 'o.prepaid_micro_usd'])
      .execute();
    return new Map(
      rows.map((row) => [
        row.id,
        { plan: planOfRow(row), spent: Number(row.spent), prepaidMicroUsd: BigInt(row.prepaid_micro_usd), periodStartMs },
      ]),
    );
  }
}

/** An organization's row as the ledger reads it: its plan, its balance and the period's total, one snapshot. */
interface OrganizationTotal {
  plan: Plan;
  spent: number;
  prepaidMicroUsd: bigint;
  periodStartMs: number;
}

/** See `Account.allowance`; `spent` is the period's total in PostgreSQL read with the balance and the plan. */
function allowanceOf({ plan, prepaidMicroUsd, spent }: OrganizationTotal): number {
  return plan.monthlyCredits + Number(prepaidMicroUsd / MICRO_USD_PER_CREDIT) + Math.max(0, spent - plan.monthlyCredits);
}

function remainingOf(account: Account): number {
  return account.allowance - account.othersSpent - account.charged;
}

function balanceOf(account: Account): CreditBalance {
  return { remaining: Math.max(0, remainingOf(account)), replenishAtMs: account.replenishAtMs };
}

/**
 * Nothing (a free route's price) is always there to take, even below zero: processes may together
 * over-spend between flushes, and management calls work at zero balance (spec, Limits).
 */
function take(account: Account, credits: number): { ok: boolean; balance: CreditBalance } {
  const ok = credits === 0 || remainingOf(account) >= credits;
  if (ok) account.charged += credits;
  return { ok, balance: balanceOf(account) };
}
