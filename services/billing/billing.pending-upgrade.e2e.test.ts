import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fundAddressBalance, startBillingHarness, type BillingHarness } from '../../test/support/billing-harness.js';
import { BILLING_TREASURY } from '../simnet/index.js';

const USDC = 1_000_000n;
const at = (iso: string) => Date.parse(iso);

/**
 * A pending upgrade (rule 6: the balance could not pay it now) changed again before the renewal.
 * Its allowance was approved by the funder for this plan: a change without a new allowanceId is
 * checked against it, and its limit decides (rule 5: a downgrade needs no new allowance; rule 4:
 * the limit caps what a period takes). It was 404 ALLOWANCE_NOT_FOUND "prepare again".
 */
describe('on-chain plan: changing a pending upgrade', () => {
  let h: BillingHarness;
  let business: string;
  let teamAllowance: string;
  beforeAll(async () => {
    h = await startBillingHarness({ seed: 'billing-pending-upgrade', start: at('2027-03-10T09:00:00.000Z') });
    h.moveTo(at('2027-03-10T10:00:00.000Z'));
    await fundAddressBalance(h, 'grace', 100n * USDC);
    teamAllowance = (await h.setUp({ funder: 'grace', tier: 'team', prefundPeriods: 1 })).allowanceId;
    expect((await h.call('POST', '/v1/billing/onchain/activate', { network: 'testnet', tier: 'team', allowanceId: teamAllowance })).body.data).toMatchObject({ state: 'active' });
    h.moveTo(at('2027-03-12T10:00:00.000Z'));
    business = (await h.setUp({ funder: 'grace', tier: 'business', prefundPeriods: 0 })).allowanceId;
    const pending = await h.call('POST', '/v1/billing/onchain/change', { tier: 'business', when: 'now', allowanceId: business });
    expect(pending.body.data).toMatchObject({ plan: { tier: 'team' }, pendingChange: { tier: 'business', allowanceId: business, at: 'next_renewal' } });
  });
  afterAll(async () => h.close());

  const change = (body: object) => h.call('POST', '/v1/billing/onchain/change', body);

  it('an upgrade naming the plan\'s own allowance, limited to the current price: 400 ALLOWANCE_LIMIT_TOO_LOW', async () => {
    const refused = await change({ tier: 'growth', when: 'next_renewal', allowanceId: teamAllowance });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      error: expect.any(String), code: 'ALLOWANCE_LIMIT_TOO_LOW', requestId: expect.any(String),
      message: `The allowance must allow at least ${199n * USDC} micro-USDC per calendar month.`,
    });
    expect((await h.call('GET', '/v1/billing/onchain')).body.data).toMatchObject({ plan: { tier: 'team' }, pendingChange: { tier: 'business', allowanceId: business } });
  });

  it('lowered to a tier still above the current one, without an allowanceId: 200, pending on the approved allowance', async () => {
    const lowered = await change({ tier: 'growth', when: 'next_renewal' });
    expect(lowered.status).toBe(200);
    expect(lowered.body.data).toMatchObject({ state: 'active', plan: { tier: 'team' }, pendingChange: { tier: 'growth', allowanceId: business, at: 'next_renewal' } });
    // Raised again within the allowance's limit (999 USDC a month): the same.
    const raised = await change({ tier: 'business', when: 'next_renewal' });
    expect(raised.body.data).toMatchObject({ plan: { tier: 'team' }, pendingChange: { tier: 'business', allowanceId: business } });
  });

  it('lowered with `now`: the balance still cannot pay, so it stays pending (rule 6); once it can, it is charged under that allowance', async () => {
    const unpaid = await change({ tier: 'growth', when: 'now' });
    expect(unpaid.status).toBe(200);
    expect(unpaid.body.data).toMatchObject({ plan: { tier: 'team' }, pendingChange: { tier: 'growth', allowanceId: business } });

    await fundAddressBalance(h, 'grace', 200n * USDC);
    const treasury = await h.usdcBalance(BILLING_TREASURY);
    const paid = await change({ tier: 'growth', when: 'now' });
    expect(paid.status).toBe(200);
    expect(paid.body.data).toMatchObject({ state: 'active', plan: { tier: 'growth', price: String(199n * USDC) }, allowance: { id: business }, pendingChange: null });
    const charged = (await h.usdcBalance(BILLING_TREASURY)) - treasury;
    // 199 minus the unused share of team's March (49 × 26/31 days left, about 41).
    expect(charged > 150n * USDC && charged < 199n * USDC).toBe(true);
  });

  it('the renewal takes the growth price under the business allowance', async () => {
    // More than the address balance holds (about 147), or the SDK's coinWithBalance takes from it and moves nothing.
    await fundAddressBalance(h, 'grace', 200n * USDC);
    const treasury = await h.usdcBalance(BILLING_TREASURY);
    h.moveTo(at('2027-04-12T10:05:00.000Z'));
    expect(await h.billing.pass.run()).toMatchObject({ charged: 1, declined: 0 });
    expect((await h.usdcBalance(BILLING_TREASURY)) - treasury).toBe(199n * USDC);
  });

  it('the plan now runs on an allowance above its price: an upgrade within that limit may name it (200)', async () => {
    // growth (199) under the business allowance (999 a month): professional (499) fits.
    const within = await change({ tier: 'professional', when: 'next_renewal', allowanceId: business });
    expect(within.status).toBe(200);
    expect(within.body.data).toMatchObject({ plan: { tier: 'growth' }, allowance: { id: business }, pendingChange: { tier: 'professional', allowanceId: business } });
    expect((await change({ tier: 'growth', when: 'next_renewal' })).body.data).toMatchObject({ pendingChange: null });
  });

  it('a pending upgrade above its allowance\'s limit needs a new one: 400 ALLOWANCE_LIMIT_TOO_LOW; a tier at or below the current one drops it', async () => {
    h.moveTo(at('2027-04-13T10:00:00.000Z'));
    const professional = (await h.setUp({ funder: 'grace', tier: 'professional', prefundPeriods: 0 })).allowanceId;
    // About 300 USDC are due; the balance holds about 147.
    const pending = await change({ tier: 'professional', when: 'now', allowanceId: professional });
    expect(pending.body.data).toMatchObject({ plan: { tier: 'growth' }, pendingChange: { tier: 'professional', allowanceId: professional } });

    const over = await change({ tier: 'business', when: 'next_renewal' });
    expect(over.status).toBe(400);
    expect(over.body).toEqual({
      error: expect.any(String), code: 'ALLOWANCE_LIMIT_TOO_LOW', requestId: expect.any(String),
      message: `The allowance must allow at least ${999n * USDC} micro-USDC per calendar month.`,
    });

    const current = await change({ tier: 'growth', when: 'next_renewal' });
    expect(current.status).toBe(200);
    expect(current.body.data).toMatchObject({ plan: { tier: 'growth' }, pendingChange: null });
    expect((await change({ tier: 'professional', when: 'next_renewal' })).body).toMatchObject({ code: 'ALLOWANCE_NOT_FOUND' });
  });
});
