import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/support/test-database.js';
import { createLogger, ManualClock } from '../core/index.js';
import { createOrganization, grantPrepaidCredit } from '../identity/index.js';
import { type Tier } from '../plans/index.js';
import { CreditLedger } from './credits.js';
import { overPlanCredits } from './prepaid.js';
import { UsageRecorder } from './usage.js';

/** One gateway process's credit state: its ledger and its usage recorder, flushed by hand. */
function gatewayProcess(db: TestDatabase, clock: ManualClock) {
  const logger = createLogger('silent');
  const ledger = new CreditLedger({ db: db.database.db, clock, logger });
  const usage = new UsageRecorder({ db: db.database.db, clock, logger, flushIntervalMs: 0, onFlushed: (w) => ledger.reconcile(w) });
  return { ledger, usage };
}

describe('overPlanCredits', () => {
  it('is the part of the added credits beyond the monthly credits', () => {
    expect(overPlanCredits(100n, 0n, 50n)).toBe(0n);
    expect(overPlanCredits(100n, 90n, 20n)).toBe(10n);
    expect(overPlanCredits(100n, 100n, 20n)).toBe(20n);
    expect(overPlanCredits(100n, 150n, 20n)).toBe(20n);
    expect(overPlanCredits(0n, 0n, 7n)).toBe(7n);
    expect(overPlanCredits(100n, 0n, 0n)).toBe(0n);
  });
});

describe('prepaid credit is spent: usage flushes deduct the over-plan credits', () => {
  let db: TestDatabase;
  const clock = new ManualClock();
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => db.drop());

  async function organization(tier: Tier, prepaidMicroUsd: bigint): Promise<string> {
    const { organization } = await createOrganization(db.database.db, clock, { name: `Prepaid ${tier}`, tier, projects: [] });
    if (prepaidMicroUsd > 0n) await grantPrepaidCredit(db.database.db, clock, organization.id, prepaidMicroUsd, 'test');
    return organization.id;
  }
  const prepaid = async (organizationId: string) =>
    BigInt(
      (await db.database.db.selectFrom('organizations').select('prepaid_micro_usd').where('id', '=', organizationId).executeTakeFirstOrThrow())
        .prepaid_micro_usd,
    );
  /** Usage already in PostgreSQL this period (another process, earlier in the month). */
  const spentEarlier = async (organizationId: string, credits: number) =>
    db.database.db
      .insertInto('usage_minutes')
      .values({ organization_id: organizationId, key_id: 'key_earlier', network: 'mainnet', route: 'GET /v1/x', minute: new Date(Date.UTC(2026, 10, 2)), requests: credits, credits })
      .execute();
  /** Reserves and records `count` requests of `credits` each, as the meter does; returns how many were admitted. */
  async function spend(p: ReturnType<typeof gatewayProcess>, organizationId: string, count: number, credits = 1): Promise<number> {
    let admitted = 0;
    for (let i = 0; i < count; i += 1) {
      if (!(await p.ledger.reserve(organizationId, credits)).ok) continue;
      admitted += 1;
      p.usage.record({ organizationId, keyId: 'key_1', network: 'mainnet', route: 'GET /v1/x', credits });
    }
    return admitted;
  }

  it('a wallet organization granted $0.001 (100 credits) spends it: balance 0 in PostgreSQL, the next reservation refused', async () => {
    const id = await organization('wallet', 1_000n);
    const p = gatewayProcess(db, clock);
    expect((await p.ledger.balance(id)).remaining).toBe(100);
    expect(await spend(p, id, 100)).toBe(100);
    await p.usage.flush();
    expect(await prepaid(id)).toBe(0n);
    expect(await p.ledger.reserve(id, 1)).toMatchObject({ ok: false, balance: { remaining: 0 } });
    // A process that starts now reads the same: nothing left, not a fresh 100.
    const fresh = gatewayProcess(db, clock);
    expect(await fresh.ledger.reserve(id, 1)).toMatchObject({ ok: false, balance: { remaining: 0 } });
  });

  it('the balance goes down flush by flush, and the ledger counts each credit once', async () => {
    const id = await organization('wallet', 1_000n);
    const p = gatewayProcess(db, clock);
    await spend(p, id, 30);
    expect((await p.ledger.balance(id)).remaining).toBe(70);
    await p.usage.flush();
    expect(await prepaid(id)).toBe(700n);
    expect((await p.ledger.balance(id)).remaining).toBe(70);
    await spend(p, id, 5, 2);
    expect((await p.ledger.balance(id)).remaining).toBe(60);
    await p.usage.flush();
    expect(await prepaid(id)).toBe(600n);
    expect((await p.ledger.balance(id)).remaining).toBe(60);
  });

  it('a team organization spending less than its monthly credits leaves prepaid untouched', async () => {
    const id = await organization('team', 5_000_000n);
    await spentEarlier(id, 24_000_000);
    const p = gatewayProcess(db, clock);
    expect((await p.ledger.balance(id)).remaining).toBe(1_000_000 + 500_000);
    expect(await spend(p, id, 20, 5)).toBe(20);
    await p.usage.flush();
    expect(await prepaid(id)).toBe(5_000_000n);
    expect((await p.ledger.balance(id)).remaining).toBe(1_000_000 - 100 + 500_000);
  });

  it('crossing the monthly credits inside one flush deducts exactly the over-plan part', async () => {
    const id = await organization('team', 5_000_000n);
    await spentEarlier(id, 25_000_000 - 30);
    const p = gatewayProcess(db, clock);
    expect((await p.ledger.balance(id)).remaining).toBe(30 + 500_000);
    expect(await spend(p, id, 10, 5)).toBe(10); // 50 credits: 30 within the plan, 20 over
    await p.usage.flush();
    expect(await prepaid(id)).toBe(5_000_000n - 20n * 10n);
    expect((await p.ledger.balance(id)).remaining).toBe(500_000 - 20);
  });

  it('two processes flushing the same organization deduct each credit exactly once in total', async () => {
    const id = await organization('team', 1_000_000n);
    await spentEarlier(id, 25_000_000 - 10);
    const [a, b] = [gatewayProcess(db, clock), gatewayProcess(db, clock)];
    expect(await spend(a, id, 30)).toBe(30);
    expect(await spend(b, id, 40)).toBe(40);
    // Both flushes start while the organization row is held (as by a third flush): each must
    // wait for the row before reading the period's total, so the second reads the first's.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holder = db.database.db.transaction().execute(async (trx) => {
      await trx.selectFrom('organizations').select('id').where('id', '=', id).forUpdate().execute();
      locked();
      await released;
    });
    await isLocked;
    const flushes = Promise.all([a.usage.flush(), b.usage.flush()]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    release();
    await holder;
    await flushes;
    // 70 credits, 10 within the plan, 60 over.
    expect(await prepaid(id)).toBe(1_000_000n - 60n * 10n);
    // Flushing again (nothing pending) pays nothing more.
    await Promise.all([a.usage.flush(), b.usage.flush()]);
    expect(await prepaid(id)).toBe(1_000_000n - 60n * 10n);
    // Once each process has re-read the other's flush (its next reconciliation), both agree.
    for (const p of [a, b]) {
      await p.ledger.reconcile([]);
      expect((await p.ledger.balance(id)).remaining).toBe(100_000 - 60);
    }
  });

  it('a flush that fails deducts nothing; its retry deducts once', async () => {
    const id = await organization('wallet', 1_000n);
    const p = gatewayProcess(db, clock);
    await spend(p, id, 10);
    // The usage rows cannot be written: the deduction in the same transaction is rolled back.
    await sql`ALTER TABLE usage_minutes ADD CONSTRAINT refuse_key_1 CHECK (key_id <> 'key_1') NOT VALID`.execute(db.database.db);
    await p.usage.flush();
    expect(p.usage.pending().credits).toBe(10);
    expect(await prepaid(id)).toBe(1_000n);
    await sql`ALTER TABLE usage_minutes DROP CONSTRAINT refuse_key_1`.execute(db.database.db);
    await p.usage.flush();
    expect(p.usage.pending().credits).toBe(0);
    expect(await prepaid(id)).toBe(900n);
  });

  it('a new month starts with the plan\'s monthly credits again and the prepaid balance as left', async () => {
    const id = await organization('team', 1_000n);
    await spentEarlier(id, 25_000_000 - 10);
    const p = gatewayProcess(db, clock);
    expect(await spend(p, id, 60)).toBe(60); // 10 within the plan, 50 over
    await p.usage.flush();
    expect(await prepaid(id)).toBe(500n);
    const before = clock.now();
    clock.set(Date.UTC(2026, 11, 1, 0, 0, 0));
    try {
      expect(await p.ledger.balance(id)).toEqual({ remaining: 25_000_000 + 50, replenishAtMs: Date.UTC(2027, 0, 1) });
      expect(await spend(p, id, 20)).toBe(20);
      await p.usage.flush();
      expect(await prepaid(id)).toBe(500n);
      expect((await p.ledger.balance(id)).remaining).toBe(25_000_000 - 20 + 50);
    } finally {
      clock.set(before);
    }
  });
});
