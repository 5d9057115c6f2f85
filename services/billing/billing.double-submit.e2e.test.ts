import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../core/index.js';
import { gatedChain, simnetChain, startBillingHarness, type BillingHarness } from '../../test/support/billing-harness.js';
import { BILLING_TREASURY } from '../simnet/index.js';
import { BillingService } from './billing-service.js';

const at = (iso: string) => Date.parse(iso);

describe('two upgrades `now` submitted together (a double click, two tabs): one charge, never two', () => {
  let h: BillingHarness;
  beforeAll(async () => {
    h = await startBillingHarness({ seed: 'billing-double-submit', start: at('2027-03-10T12:00:00.000Z') });
  });
  afterAll(async () => h.close());

  it('the second upgrade, read before the first was charged, is refused (the plan is upgraded already) instead of charging the upgrade again under another allowance', async () => {
    const { allowanceId: team } = await h.setUp({ funder: 'carol', tier: 'team', prefundPeriods: 1 });
    expect((await h.call('POST', '/v1/billing/onchain/activate', { network: 'testnet', tier: 'team', allowanceId: team })).status).toBe(200);
    const first = await h.setUp({ funder: 'carol', tier: 'growth', prefundPeriods: 2 });
    const second = await h.setUp({ funder: 'carol', tier: 'growth', prefundPeriods: 0 });
    const treasuryBefore = await h.usdcBalance(BILLING_TREASURY);

    // A second server process (same database, same charging lock), whose read of the allowance
    // is held until the other request has been answered.
    const gate = gatedChain(simnetChain(h));
    const other = new BillingService({ db: h.db.database.db, clock: h.clock, chain: gate.chain, lock: h.billing.lock });
    const late = other.change(h.organizationId, { tier: 'growth', when: 'now', allowanceId: second.allowanceId })
      .then((view) => ({ status: 200, code: undefined, view }), (error: unknown) => {
        if (!(error instanceof ApiError)) throw error;
        return { status: error.status, code: error.code, view: undefined };
      });
    await gate.waiting;
    const early = await h.call('POST', '/v1/billing/onchain/change', { tier: 'growth', when: 'now', allowanceId: first.allowanceId });
    h.moveTo(h.clock.now() + 1_000);
    gate.release();
    const answers = [early, await late].map((answer) => ({ status: answer.status, code: 'body' in answer ? answer.body.code : answer.code }));

    const upgrades = await h.db.database.db.selectFrom('billing_charges').select(['amount_micro_usdc', 'status']).where('kind', '=', 'upgrade').where('status', '=', 'succeeded').execute();
    expect(upgrades).toHaveLength(1);
    expect(await h.usdcBalance(BILLING_TREASURY)).toBe(treasuryBefore + BigInt(upgrades[0]!.amount_micro_usdc));
    // The second is decided again under the charging lock, on the plan the first upgraded: the
    // same plan requested (it was 409 CHARGE_IN_PROGRESS while the lock was held for the whole
    // decision, billing.lock-tenants.e2e.test.ts).
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
    expect(answers.find((answer) => answer.status === 400)!.code).toBe('PLAN_UNCHANGED');
    expect((await h.call('GET', '/v1/billing/onchain')).body.data).toMatchObject({ state: 'active', plan: { tier: 'growth' }, pendingChange: null });
  });
});
