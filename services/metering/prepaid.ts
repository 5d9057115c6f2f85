import type { Transaction } from 'kysely';
import type { DatabaseSchema } from '../db/index.js';
import { MICRO_USD_PER_CREDIT } from '../plans/index.js';
import { creditPeriod } from './period.js';
import { planOfRow } from '../plans/plan-table.js';

/** Credits one organization spent in one minute, as a usage flush adds them. */
export interface SpentCredits {
  organizationId: string;
  /** Start of the minute, Unix ms. */
  minute: number;
  credits: number;
}

/**
 * Credits of `added` that fall beyond the plan's monthly credits, given `before` already spent
 * this period: the part prepaid credit pays for.
 */
export function overPlanCredits(monthlyCredits: bigint, before: bigint, added: bigint): bigint {
  const over = (spent: bigint) => (spent > monthlyCredits ? spent - monthlyCredits : 0n);
  return over(before + added) - over(before);
}

/**
 * Pays from the prepaid balance for the credits of a usage flush that go beyond each
 * organization's monthly credits, at `MICRO_USD_PER_CREDIT` micro-USD per credit, never below 0.
 * Runs in the flush's transaction, before its rows are added: each organization row is locked
 * (in id order, so concurrent flushes of several processes cannot deadlock), so the period's
 * total read next is the total before this flush and no other flush can pay for the same credits.
 * Returns the micro-USD deducted per organization (none listed: nothing deducted).
 */
export async function payOverPlan(trx: Transaction<DatabaseSchema>, spent: readonly SpentCredits[]): Promise<Map<string, bigint>> {
  // organization → period start → credits of this flush
  const added = new Map<string, Map<number, bigint>>();
  for (const row of spent) {
    if (row.credits <= 0) continue;
    const periods = added.get(row.organizationId) ?? new Map<number, bigint>();
    const start = creditPeriod(row.minute).startMs;
    periods.set(start, (periods.get(start) ?? 0n) + BigInt(row.credits));
    added.set(row.organizationId, periods);
  }
  const deducted = new Map<string, bigint>();
  if (added.size === 0) return deducted;
  const organizations = await trx
    .selectFrom('organizations')
    .select(['id', 'tier', 'subscription_plan', 'subscription_status', 'prepaid_micro_usd'])
    .where('id', 'in', [...added.keys()])
    .orderBy('id')
    .forUpdate()
    .execute();
  if (organizations.length === 0) return deducted;
  const ids = organizations.map((organization) => organization.id);
  // The period totals before this flush, one query per period in the flush (two at a month's turn).
  const before = new Map<string, bigint>();
  const periodStarts = new Set([...added.values()].flatMap((periods) => [...periods.keys()]));
  for (const startMs of periodStarts) {
    const rows = await trx
      .selectFrom('usage_minutes')
      .select(['organization_id', (eb) => eb.fn.sum<string>('credits').as('credits')])
      .where('organization_id', 'in', ids)
      .where('minute', '>=', new Date(startMs))
      .where('minute', '<', new Date(creditPeriod(startMs).replenishAtMs))
      .groupBy('organization_id')
      .execute();
    for (const row of rows) before.set(`${row.organization_id}\u0000${startMs}`, BigInt(row.credits));
  }
  for (const organization of organizations) {
    const plan = planOfRow(organization);
    let overPlan = 0n;
    for (const [startMs, credits] of added.get(organization.id)!) {
      overPlan += overPlanCredits(BigInt(plan.monthlyCredits), before.get(`${organization.id}\u0000${startMs}`) ?? 0n, credits);
    }
    const balance = BigInt(organization.prepaid_micro_usd);
    // What the balance cannot pay stays unpaid (the over-spend bound of docs/metering.md).
    const paid = min(overPlan * MICRO_USD_PER_CREDIT, balance);
    if (paid === 0n) continue;
    await trx
      .updateTable('organizations')
      .set({ prepaid_micro_usd: (balance - paid).toString() })
      .where('id', '=', organization.id)
      .execute();
    deducted.set(organization.id, paid);
  }
  return deducted;
}

function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}
