import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/support/test-database.js';
import { createLogger, ManualClock } from '../core/index.js';
import { createOrganization } from '../identity/index.js';
import { CreditLedger } from './credits.js';
import { UsageRecorder } from './usage.js';

/** One gateway process's credit state: its ledger and its usage recorder, flushed by hand. */
function gatewayProcess(db: TestDatabase, clock: ManualClock) {
  const logger = createLogger('silent');
  const ledger = new CreditLedger({ db: db.database.db, clock, logger });
  const usage = new UsageRecorder({ db: db.database.db, clock, logger, flushIntervalMs: 0, onFlushed: (w) => ledger.reconcile(w) });
  return { ledger, usage, sinceFlush: 0, charged: 0 };
}

describe('credit ledger across processes', () => {
  let db: TestDatabase;
  const clock = new ManualClock();
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => db.drop());

  it('over-spend stays within what the other process charges between two flushes (2 × batch), and PostgreSQL holds every charge', async () => {
    // A wallet organization: no monthly credits, 1,000 micro-USD prepaid = 100 credits.
    const { organization } = await createOrganization(db.database.db, clock, { name: 'Two', tier: 'wallet', projects: [] });
    await db.database.db.updateTable('organizations').set({ prepaid_micro_usd: 1_000n }).where('id', '=', organization.id).execute();
    const allowance = 100;
    const batch = 10; // charges per process between its flushes (the flush interval, in requests)
    const processes = [gatewayProcess(db, clock), gatewayProcess(db, clock)];
    let refusedInARow = 0;
    while (refusedInARow < processes.length) {
      for (const p of processes) {
        const { ok } = await p.ledger.reserve(organization.id, 1);
        if (ok) {
          refusedInARow = 0;
          p.charged += 1;
          p.sinceFlush += 1;
          p.usage.record({ organizationId: organization.id, keyId: 'key_1', network: 'mainnet', route: 'GET /v1/x', credits: 1 });
        } else {
          refusedInARow += 1;
        }
        if (p.sinceFlush === batch || !ok) {
          p.sinceFlush = 0;
          await p.usage.flush();
        }
      }
    }
    for (const p of processes) await p.usage.flush();
    const total = processes.reduce((sum, p) => sum + p.charged, 0);
    expect(total).toBeGreaterThanOrEqual(allowance);
    expect(total).toBeLessThanOrEqual(allowance + 2 * batch);
    const row = await db.database.db
      .selectFrom('usage_minutes')
      .select((eb) => eb.fn.sum<string>('credits').as('credits'))
      .where('organization_id', '=', organization.id)
      .executeTakeFirstOrThrow();
    expect(Number(row.credits)).toBe(total);
    for (const p of processes) expect((await p.ledger.balance(organization.id)).remaining).toBe(0);
  });

  it('within one process, reservations never over-spend, even concurrently', async () => {
    const { organization } = await createOrganization(db.database.db, clock, { name: 'One', tier: 'wallet', projects: [] });
    await db.database.db.updateTable('organizations').set({ prepaid_micro_usd: 500n }).where('id', '=', organization.id).execute();
    const { ledger } = gatewayProcess(db, clock);
    const results = await Promise.all(Array.from({ length: 80 }, () => ledger.reserve(organization.id, 1)));
    expect(results.filter((r) => r.ok)).toHaveLength(50);
  });

  it('a new month starts from the plan\'s full monthly credits', async () => {
    const { organization } = await createOrganization(db.database.db, clock, { name: 'Month', tier: 'team', projects: [] });
    const p = gatewayProcess(db, clock);
    expect((await p.ledger.reserve(organization.id, 7)).balance.remaining).toBe(25_000_000 - 7);
    p.usage.record({ organizationId: organization.id, keyId: 'k', network: 'mainnet', route: 'GET /v1/x', credits: 7 });
    await p.usage.flush();
    clock.set(Date.UTC(2026, 11, 1, 0, 0, 0));
    expect(await p.ledger.balance(organization.id)).toEqual({ remaining: 25_000_000, replenishAtMs: Date.UTC(2027, 0, 1) });
  });
});
