import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fundAddressBalance, revokeAllowance, startBillingHarness, type BillingHarness } from '../../test/support/billing-harness.js';

const USDC = 1_000_000n;
const DAY_MS = 86_400_000;
const at = (iso: string) => Date.parse(iso);

/**
 * Spec: "any paid state | allowance found revoked | cancel_pending | treated as cancel at period
 * end", every time it is found, not once a period. The revocation's idempotency key was one per
 * period: after a resume (the period unchanged) a second revocation hit the first one's key, no
 * transition was written, yet the pass counted it `cancelled` and saved the next attempt at the
 * period end; every later pass did the same, and the plan stayed `active` on paid limits, unpaid.
 */
describe('on-chain plan: an allowance revoked again after the plan was resumed', () => {
  let h: BillingHarness;
  const periodEnd = at('2027-06-01T10:00:00.000Z');
  beforeAll(async () => {
    h = await startBillingHarness({ seed: 'billing-revoked-after-resume', start: at('2027-05-01T09:00:00.000Z') });
  });
  afterAll(async () => h.close());

  const plan = async () => (await h.call('GET', '/v1/billing/onchain')).body.data as Record<string, unknown>;
  const organization = () => h.db.database.db.selectFrom('organizations').select(['subscription_plan', 'subscription_status']).where('id', '=', h.organizationId).executeTakeFirstOrThrow();
  const transitions = () => h.db.database.db.selectFrom('plan_transitions').select(['trigger', 'to_state']).orderBy('seq').execute();

  it('the resumed plan\'s new allowance revoked: cancel_pending again, and it ends at its period end', async () => {
    h.moveTo(at('2027-05-01T10:00:00.000Z'));
    await fundAddressBalance(h, 'grace', 200n * USDC);
    const first = await h.setUp({ funder: 'grace', tier: 'team', prefundPeriods: 0 });
    expect((await h.call('POST', '/v1/billing/onchain/activate', { network: 'testnet', tier: 'team', allowanceId: first.allowanceId })).body.data).toMatchObject({ state: 'active' });
    await revokeAllowance(h, 'grace', first.allowanceId, first.capId);
    h.moveTo(periodEnd);
    expect(await h.billing.pass.run()).toMatchObject({ cancelled: 1, failed: 0 });

    const second = await h.setUp({ funder: 'grace', tier: 'team', prefundPeriods: 0 });
    expect((await h.call('POST', '/v1/billing/onchain/activate', { network: 'testnet', tier: 'team', allowanceId: second.allowanceId })).body.data).toMatchObject({ state: 'active' });
    await revokeAllowance(h, 'grace', second.allowanceId, second.capId);
    h.moveTo(periodEnd + 5 * 60_000);
    expect(await h.billing.pass.run()).toMatchObject({ cancelled: 1, charged: 0, failed: 0 });
    expect(await plan()).toMatchObject({ state: 'cancel_pending', allowance: { id: second.allowanceId }, nextCharge: null });
    expect(await organization()).toEqual({ subscription_plan: 'team', subscription_status: 'cancel_pending' });
    // Found once: the next pass has nothing more to do for it but end it.
    expect(await h.billing.pass.run()).toMatchObject({ cancelled: 0, ended: 1, failed: 0 });
    expect(await plan()).toMatchObject({ state: 'ended', ended: { trigger: 'period_ended' } });
    expect(await organization()).toEqual({ subscription_plan: null, subscription_status: 'ended' });
    expect(await transitions()).toEqual([
      { trigger: 'activate', to_state: 'awaiting_first_charge' },
      { trigger: 'charge_succeeded', to_state: 'active' },
      { trigger: 'allowance_revoked', to_state: 'cancel_pending' },
      { trigger: 'resume', to_state: 'active' },
      { trigger: 'allowance_revoked', to_state: 'cancel_pending' },
      { trigger: 'period_ended', to_state: 'ended' },
    ]);
  });
});

/**
 * A pending upgrade's allowance revoked: the plan is cancelled (spec), and a cancel drops a
 * pending change. It was kept, so the plan resumed on its own allowance still owed its renewal
 * under the revoked one: revoked again at every pass (see above), never charged.
 */
describe('on-chain plan: a pending upgrade\'s allowance revoked, the plan resumed on its own allowance', () => {
  let h: BillingHarness;
  beforeAll(async () => {
    h = await startBillingHarness({ seed: 'billing-revoked-pending-upgrade', start: at('2027-05-01T09:00:00.000Z') });
  });
  afterAll(async () => h.close());

  const plan = async () => (await h.call('GET', '/v1/billing/onchain')).body.data as Record<string, unknown>;

  it('the revocation drops the pending upgrade; resumed, the renewal is charged at the current tier under the current allowance', async () => {
    h.moveTo(at('2027-05-01T10:00:00.000Z'));
    await fundAddressBalance(h, 'grace', 500n * USDC);
    const team = await h.setUp({ funder: 'grace', tier: 'team', prefundPeriods: 0 });
    expect((await h.call('POST', '/v1/billing/onchain/activate', { network: 'testnet', tier: 'team', allowanceId: team.allowanceId })).body.data).toMatchObject({ state: 'active' });
    h.moveTo(at('2027-05-05T10:00:00.000Z'));
    const growth = await h.setUp({ funder: 'grace', tier: 'growth', prefundPeriods: 0 });
    expect((await h.call('POST', '/v1/billing/onchain/change', { tier: 'growth', when: 'next_renewal', allowanceId: growth.allowanceId })).body.data)
      .toMatchObject({ pendingChange: { tier: 'growth', allowanceId: growth.allowanceId } });
    await revokeAllowance(h, 'grace', growth.allowanceId, growth.capId);

    h.moveTo(at('2027-06-01T10:00:00.000Z'));
    expect(await h.billing.pass.run()).toMatchObject({ cancelled: 1, charged: 0, failed: 0 });
    expect(await plan()).toMatchObject({ state: 'cancel_pending', pendingChange: null });
    const resumed = await h.call('POST', '/v1/billing/onchain/activate', { network: 'testnet', tier: 'team', allowanceId: team.allowanceId });
    expect(resumed.status).toBe(200);
    expect(resumed.body.data).toMatchObject({
      state: 'active', plan: { tier: 'team', price: '49000000' }, allowance: { id: team.allowanceId }, pendingChange: null,
      nextCharge: { at: '2027-06-01T10:00:00.000Z', amount: '49000000' },
    });

    h.moveTo(at('2027-06-01T10:05:00.000Z'));
    expect(await h.billing.pass.run()).toMatchObject({ charged: 1, cancelled: 0, failed: 0 });
    expect(await plan()).toMatchObject({
      state: 'active', plan: { tier: 'team' }, currentPeriod: { start: '2027-06-01T10:00:00.000Z', end: '2027-07-01T10:00:00.000Z' },
    });
    h.moveTo(at('2027-06-01T10:05:00.000Z') + DAY_MS);
    expect(await h.billing.pass.run()).toMatchObject({ charged: 0, cancelled: 0, failed: 0 });
    const charges = await h.db.database.db.selectFrom('billing_charges').select(['kind', 'status', 'amount_micro_usdc']).orderBy('created_at').execute();
    expect(charges).toEqual([
      { kind: 'first', status: 'succeeded', amount_micro_usdc: '49000000' },
      { kind: 'renewal', status: 'succeeded', amount_micro_usdc: '49000000' },
    ]);
  });
});
