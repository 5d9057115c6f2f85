import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatedChain, simnetChain, startBillingHarness, type BillingHarness } from '../../test/support/billing-harness.js';
import type { DatabaseSchema } from '../db/index.js';
import { BillingPass } from './billing-pass.js';
import { Charger } from './charger.js';

const at = (iso: string) => Date.parse(iso);

/** Polls `done` until true; the deadline only bounds a hang. */
async function until(done: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`not reached within 30 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('a cancel that lands after the renewal was executed on chain, before the billing pass wrote it to the plan', () => {
  let h: BillingHarness;
  let pool: pg.Pool;
  beforeAll(async () => {
    h = await startBillingHarness({ seed: 'billing-paid-cancel-race', start: at('2027-03-10T12:00:00.000Z') });
    // The pass of another billing process, whose only database connection the test can hold.
    pool = new pg.Pool({ connectionString: h.db.url, max: 1 });
  });
  afterAll(async () => {
    await pool.end();
    await h.close();
  });

  it('is answered 409 CHARGE_IN_PROGRESS until the paid period is on the plan; cancelled then, the plan keeps the period it paid for', async () => {
    const { allowanceId } = await h.setUp({ funder: 'carol', tier: 'team', prefundPeriods: 2 });
    expect((await h.call('POST', '/v1/billing/onchain/activate', { network: 'testnet', tier: 'team', allowanceId })).status).toBe(200);
    h.moveTo(at('2027-04-10T12:00:00.000Z'));

    const gate = gatedChain(simnetChain(h));
    const pass = new BillingPass({ db: new Kysely<DatabaseSchema>({ dialect: new PostgresDialect({ pool }) }), clock: h.clock, chain: gate.chain, charger: new Charger({ db: h.db.database.db, chain: gate.chain, clock: h.clock }) });
    const running = pass.run();
    await gate.waiting;
    // The pass has read the plan and is reading the chain: its connection is taken from it until the cancel is answered.
    const held = await pool.connect();
    gate.release();
    await until(() => pool.waitingCount === 1, 'the pass waiting for its connection to write the charge');
    expect(h.simnet.ledger.getAllowance(allowanceId)!.lifetimeSpent).toBe(2n * 49_000_000n);

    const early = await h.call('POST', '/v1/billing/onchain/cancel').finally(() => held.release());
    // It was 200 cancel_pending, period ending today: the pass's write of the paid period then
    // failed (no charge_succeeded from cancel_pending), and the next pass ended the plan, paid.
    expect({ status: early.status, code: early.body.code }).toEqual({ status: 409, code: 'CHARGE_IN_PROGRESS' });
    expect(await running).toMatchObject({ charged: 1, failed: 0 });

    const cancelled = await h.call('POST', '/v1/billing/onchain/cancel');
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.data).toMatchObject({
      state: 'cancel_pending', plan: { tier: 'team' }, nextCharge: null,
      currentPeriod: { start: '2027-04-10T12:00:00.000Z', end: '2027-05-10T12:00:00.000Z' },
    });
    expect(await h.db.database.db.selectFrom('organizations').select(['subscription_status', 'subscription_period_end']).where('id', '=', h.organizationId).executeTakeFirstOrThrow())
      .toEqual({ subscription_status: 'cancel_pending', subscription_period_end: new Date('2027-05-10T12:00:00.000Z') });
    // The paid period runs to its end, then the plan ends.
    expect(await h.billing.pass.run()).toMatchObject({ charged: 0, ended: 0, failed: 0 });
    h.moveTo(at('2027-05-10T12:00:00.000Z'));
    expect(await h.billing.pass.run()).toMatchObject({ charged: 0, ended: 1, failed: 0 });
    expect(h.simnet.ledger.getAllowance(allowanceId)!.lifetimeSpent).toBe(2n * 49_000_000n);
  });
});
