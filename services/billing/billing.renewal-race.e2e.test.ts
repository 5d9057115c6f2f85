import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainWith, gatedChain, simnetChain, startBillingHarness, type BillingHarness } from '../../test/support/billing-harness.js';
import { BILLING_TREASURY } from '../simnet/index.js';
import { BillingPass } from './billing-pass.js';
import { ChainUnavailable } from './chain/index.js';
import { Charger } from './charger.js';

const USDC = 1_000_000n;
const at = (iso: string) => Date.parse(iso);

describe('a change `next_renewal` that lands while the billing pass reads the chain for that renewal', () => {
  let h: BillingHarness;
  beforeAll(async () => {
    h = await startBillingHarness({ seed: 'billing-renewal-race', start: at('2027-03-10T12:00:00.000Z') });
  });
  afterAll(async () => h.close());

  it('applies at that renewal (it was saved before the renewal was recorded) instead of being dropped when the renewal is paid', async () => {
    const { allowanceId } = await h.setUp({ funder: 'carol', tier: 'growth', prefundPeriods: 2 });
    expect((await h.call('POST', '/v1/billing/onchain/activate', { network: 'testnet', tier: 'growth', allowanceId })).status).toBe(200);
    h.moveTo(at('2027-04-10T12:00:00.000Z'));
    const treasuryBefore = await h.usdcBalance(BILLING_TREASURY);

    // The pass of another billing process, whose read of the allowance is held until the change has been answered.
    const gate = gatedChain(simnetChain(h));
    const pass = new BillingPass({ db: h.db.database.db, clock: h.clock, chain: gate.chain, charger: new Charger({ db: h.db.database.db, chain: gate.chain, clock: h.clock }) });
    const running = pass.run();
    await gate.waiting;
    const changed = await h.call('POST', '/v1/billing/onchain/change', { tier: 'team', when: 'next_renewal' });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ plan: { tier: 'growth' }, pendingChange: { tier: 'team', allowanceId: null, at: 'next_renewal' } });
    gate.release();
    expect(await running).toMatchObject({ charged: 1, declined: 0, failed: 0 });

    const renewals = await h.db.database.db.selectFrom('billing_charges').select(['tier', 'amount_micro_usdc', 'status']).where('kind', '=', 'renewal').execute();
    expect(renewals).toEqual([{ tier: 'team', amount_micro_usdc: '49000000', status: 'succeeded' }]);
    expect(await h.usdcBalance(BILLING_TREASURY)).toBe(treasuryBefore + 49n * USDC);
    expect((await h.call('GET', '/v1/billing/onchain')).body.data).toMatchObject({
      state: 'active', plan: { tier: 'team', price: '49000000' }, pendingChange: null,
      currentPeriod: { start: '2027-04-10T12:00:00.000Z', end: '2027-05-10T12:00:00.000Z' }, nextCharge: { at: '2027-05-10T12:00:00.000Z', amount: '49000000' },
    });
  });

  it('kept when the node then fails that read (the pass\'s hourly retry is written over the plan as it is now, not as it was read)', async () => {
    h.moveTo(at('2027-05-10T12:00:00.000Z'));
    // The read is held until the change has been answered, then the node is unreachable: a failure of ours.
    const gate = gatedChain(chainWith(simnetChain(h), { allowance: () => Promise.reject(new ChainUnavailable('node down')) }));
    const pass = new BillingPass({ db: h.db.database.db, clock: h.clock, chain: gate.chain, charger: new Charger({ db: h.db.database.db, chain: gate.chain, clock: h.clock }) });
    const running = pass.run();
    await gate.waiting;
    expect((await h.call('POST', '/v1/billing/onchain/change', { tier: 'growth', when: 'next_renewal', allowanceId: (await h.setUp({ funder: 'carol', tier: 'growth', prefundPeriods: 0 })).allowanceId })).status).toBe(200);
    gate.release();
    expect(await running).toMatchObject({ charged: 0, unavailable: 1, failed: 0 });
    expect((await h.call('GET', '/v1/billing/onchain')).body.data).toMatchObject({
      state: 'active', plan: { tier: 'team' }, pendingChange: { tier: 'growth', at: 'next_renewal' }, nextCharge: { amount: '199000000' },
    });
  });
});
