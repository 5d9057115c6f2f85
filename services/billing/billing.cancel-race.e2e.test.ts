import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../core/index.js';
import { gatedChain, simnetChain, startBillingHarness, type BillingHarness } from '../../test/support/billing-harness.js';
import { BILLING_TREASURY } from '../simnet/index.js';
import { BillingService } from './billing-service.js';

const at = (iso: string) => Date.parse(iso);

describe('a cancel that lands while an upgrade `now` reads the chain', () => {
  let h: BillingHarness;
  beforeAll(async () => {
    h = await startBillingHarness({ seed: 'billing-cancel-race', start: at('2027-03-10T12:00:00.000Z') });
  });
  afterAll(async () => h.close());

  it('the upgrade sees the cancel and charges nothing (409 PLAN_CANCELLED); the plan stays cancelled on its paid tier', async () => {
    const { allowanceId: team } = await h.setUp({ funder: 'carol', tier: 'team', prefundPeriods: 1 });
    expect((await h.call('POST', '/v1/billing/onchain/activate', { network: 'testnet', tier: 'team', allowanceId: team })).status).toBe(200);
    const growth = await h.setUp({ funder: 'carol', tier: 'growth', prefundPeriods: 2 });
    h.moveTo(at('2027-03-20T12:00:00.000Z'));
    const treasuryBefore = await h.usdcBalance(BILLING_TREASURY);

    // A second server process whose read of the upgrade's allowance is held until the cancel has been answered.
    const gate = gatedChain(simnetChain(h));
    const other = new BillingService({ db: h.db.database.db, clock: h.clock, chain: gate.chain, lock: h.billing.lock });
    const upgrade = other.change(h.organizationId, { tier: 'growth', when: 'now', allowanceId: growth.allowanceId })
      .then(() => ({ status: 200, code: undefined }), (error: unknown) => {
        if (!(error instanceof ApiError)) throw error;
        return { status: error.status, code: error.code };
      });
    await gate.waiting;
    const cancelled = await h.call('POST', '/v1/billing/onchain/cancel');
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.data).toMatchObject({ state: 'cancel_pending', plan: { tier: 'team' } });
    gate.release();
    expect(await upgrade).toEqual({ status: 409, code: 'PLAN_CANCELLED' });

    expect(await h.db.database.db.selectFrom('billing_charges').select('id').where('kind', '=', 'upgrade').execute()).toEqual([]);
    expect(await h.usdcBalance(BILLING_TREASURY)).toBe(treasuryBefore);
    expect((await h.call('GET', '/v1/billing/onchain')).body.data).toMatchObject({
      state: 'cancel_pending', plan: { tier: 'team', price: '49000000' }, allowance: { id: team }, pendingChange: null,
      currentPeriod: { start: '2027-03-10T12:00:00.000Z', end: '2027-04-10T12:00:00.000Z' },
    });
    expect(await h.db.database.db.selectFrom('organizations').select(['subscription_plan', 'subscription_status']).where('id', '=', h.organizationId).executeTakeFirstOrThrow())
      .toEqual({ subscription_plan: 'team', subscription_status: 'cancel_pending' });
  });
});
