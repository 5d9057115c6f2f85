import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fundAddressBalance, startBillingHarness, type BillingHarness } from '../../test/support/billing-harness.js';
import { BILLING_TREASURY } from '../simnet/index.js';

const USDC = 1_000_000n;
const at = (iso: string) => Date.parse(iso);


/**
 * What an owner does between renewals, found broken by an adversarial walk (2026-11-28): a
 * prefund when the address balance already holds funds, an upgrade now the balance cannot pay,
 * a plan resumed and cancelled again in one period.
 */
describe('on-chain plan, owner paths: prefund on top of a balance, an unpaid upgrade, cancel after resume', () => {
  let h: BillingHarness;
  beforeAll(async () => {
    h = await startBillingHarness({ seed: 'billing-owner-paths', start: at('2027-03-10T09:00:00.000Z') });
  });
  afterAll(async () => h.close());

  it('the prefund moves coins into the address balance even when it already holds more than the prefund', async () => {
    h.moveTo(at('2027-03-10T10:00:00.000Z'));
    await fundAddressBalance(h, 'grace', 100n * USDC);
    expect(await h.usdcBalance(h.account('grace').address)).toBe(100n * USDC);
    const { allowanceId } = await h.setUp({ funder: 'grace', tier: 'team', prefundPeriods: 1 });
    // It withdrew 49 from the address balance and sent them back: 100, not 149.
    expect(await h.usdcBalance(h.account('grace').address)).toBe(149n * USDC);
    const activated = await h.call('POST', '/v1/billing/onchain/activate', { network: 'testnet', tier: 'team', allowanceId });
    expect(activated.body.data).toMatchObject({ state: 'active', billingBalance: String(100n * USDC) });
  });

  it('an upgrade now the address balance cannot pay applies at the next renewal (rule 6); cancel still works', async () => {
    h.moveTo(at('2027-03-12T10:00:00.000Z'));
    const { allowanceId } = await h.setUp({ funder: 'grace', tier: 'business', prefundPeriods: 0 });
    // About 900 USDC are due today; 100 are there. It was 503 BALANCE_UNAVAILABLE, then every cancel 409 CHARGE_IN_PROGRESS.
    const changed = await h.call('POST', '/v1/billing/onchain/change', { tier: 'business', when: 'now', allowanceId });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ state: 'active', plan: { tier: 'team' }, pendingChange: { tier: 'business', allowanceId, at: 'next_renewal' } });
    expect(await h.db.database.db.selectFrom('billing_charges').select('kind').where('status', 'in', ['pending', 'signed']).execute()).toEqual([]);
    const cancelled = await h.call('POST', '/v1/billing/onchain/cancel');
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.data).toMatchObject({ state: 'cancel_pending', pendingChange: null });
  });

  it('resumed, then cancelled again in the same period: cancel_pending, and it ends at period end without a charge', async () => {
    h.moveTo(at('2027-03-15T10:00:00.000Z'));
    const { allowanceId } = await h.setUp({ funder: 'grace', tier: 'team', prefundPeriods: 0 });
    const resumed = await h.call('POST', '/v1/billing/onchain/activate', { network: 'testnet', tier: 'team', allowanceId });
    expect(resumed.body.data).toMatchObject({ state: 'active' });
    const again = await h.call('POST', '/v1/billing/onchain/cancel');
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ state: 'cancel_pending', nextCharge: null });
    expect((await h.call('POST', '/v1/billing/onchain/cancel')).body).toMatchObject({ code: 'PLAN_CANCELLED' });
    const treasury = await h.usdcBalance(BILLING_TREASURY);
    h.moveTo(at('2027-04-10T10:00:00.000Z'));
    expect(await h.billing.pass.run()).toMatchObject({ charged: 0, ended: 1 });
    expect(await h.usdcBalance(BILLING_TREASURY)).toBe(treasury);
  });
});

describe('on-chain plan, owner paths: an upgrade now from past_due', () => {
  let h: BillingHarness;
  beforeAll(async () => {
    h = await startBillingHarness({ seed: 'billing-owner-paths-b', start: at('2027-03-10T09:00:00.000Z') });
  });
  afterAll(async () => h.close());

  it('paid, it makes the plan active on the new tier, and the organization with it (it stayed past_due on the old limits)', async () => {
    h.moveTo(at('2027-03-10T10:00:00.000Z'));
    // grace holds coins and no address balance: one prefunded period, then the renewal fails.
    const { allowanceId, capId } = await h.setUp({ funder: 'grace', tier: 'team', prefundPeriods: 1 });
    expect((await h.call('POST', '/v1/billing/onchain/activate', { network: 'testnet', tier: 'team', allowanceId, allowanceCapId: capId })).body.data)
      .toMatchObject({ state: 'active', allowance: { id: allowanceId, capId } });
    h.moveTo(at('2027-04-10T10:00:00.000Z'));
    expect(await h.billing.pass.run()).toMatchObject({ declined: 1 });
    expect((await h.call('GET', '/v1/billing/onchain')).body.data).toMatchObject({ state: 'past_due' });
    const growth = await h.setUp({ funder: 'grace', tier: 'growth', prefundPeriods: 1 });
    const changed = await h.call('POST', '/v1/billing/onchain/change', { tier: 'growth', when: 'now', allowanceId: growth.allowanceId });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ state: 'active', plan: { tier: 'growth' }, failedAttempts: 0 });
    // The new allowance with no cap id (change takes none), not the old allowance's cap.
    expect((changed.body.data as { allowance: unknown }).allowance).toEqual({ id: growth.allowanceId, capId: null });
    const organization = await h.db.database.db.selectFrom('organizations').select(['subscription_plan', 'subscription_status']).where('id', '=', h.organizationId).executeTakeFirstOrThrow();
    expect(organization).toEqual({ subscription_plan: 'growth', subscription_status: 'active' });
  });
});

describe('on-chain plan, owner paths: a first charge that fails', () => {
  let h: BillingHarness;
  beforeAll(async () => {
    h = await startBillingHarness({ seed: 'billing-owner-paths-c', start: at('2027-03-10T09:00:00.000Z') });
  });
  afterAll(async () => h.close());

  it('activate answers the plan it just made, ended, with the balance that could not pay (it was a 404 ONCHAIN_SUBSCRIPTION_NOT_FOUND)', async () => {
    h.moveTo(at('2027-03-10T10:00:00.000Z'));
    // grace has no USDC address balance, and nothing is prefunded: the first charge cannot be paid.
    const { allowanceId } = await h.setUp({ funder: 'grace', tier: 'team', prefundPeriods: 0 });
    const activated = await h.call('POST', '/v1/billing/onchain/activate', { network: 'testnet', tier: 'team', allowanceId });
    expect(activated.status).toBe(200);
    // The balance is read before anything is built: a charge it cannot pay is declined unrecorded.
    expect(activated.body.data).toMatchObject({ state: 'ended', plan: { tier: 'team', price: '49000000' }, billingBalance: '0', nextCharge: null });
    // GET shows it too, ended, and why (it was a 404 once the plan had ended).
    const shown = await h.call('GET', '/v1/billing/onchain');
    expect(shown.status).toBe(200);
    expect(shown.body.data).toEqual({
      ...(activated.body.data as object),
      ended: { at: '2027-03-10T10:00:00.000Z', trigger: 'charge_failed', reason: 'first charge failed: address balance 0 below 49000000' },
    });
  });
});
