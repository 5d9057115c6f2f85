import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fundAddressBalance, revokeAllowance, simnetChain, startBillingHarness, type BillingHarness } from '../../test/support/billing-harness.js';
import { BillingService } from './billing-service.js';
import type { ChargingLock } from './charging-lock.js';

const USDC = 1_000_000n;
const at = (iso: string) => Date.parse(iso);

/** A server process that never gets the charging lock (billing passes hold it): activate leaves the first charge to a pass. */
function lockedOut(h: BillingHarness): BillingService {
  const busy = { tryRun: async () => undefined, runWithin: async () => undefined } as unknown as ChargingLock;
  return new BillingService({ db: h.db.database.db, clock: h.clock, chain: simnetChain(h), lock: busy });
}

/**
 * A plan whose first charge was never taken (a billing pass held the charging lock at activation,
 * or the node was down) and whose allowance the funder then revoked is `cancel_pending` (spec: any
 * paid state, allowance found revoked). Set up again with the same tier, it resumed `active` with
 * nothing paid and no charge ever due: paid limits, never charged, pass after pass.
 */
describe('on-chain plan: resuming a plan whose first charge was never taken', () => {
  let h: BillingHarness;
  const start = at('2027-05-01T10:00:00.000Z');
  beforeAll(async () => {
    h = await startBillingHarness({ seed: 'billing-resume-never-paid', start: at('2027-05-01T09:00:00.000Z') });
  });
  afterAll(async () => h.close());

  const plan = async () => (await h.call('GET', '/v1/billing/onchain')).body.data as Record<string, unknown>;
  const organization = () => h.db.database.db.selectFrom('organizations').select(['subscription_plan', 'subscription_status']).where('id', '=', h.organizationId).executeTakeFirstOrThrow();
  const charges = () => h.db.database.db.selectFrom('billing_charges').select(['kind', 'status', 'amount_micro_usdc']).orderBy('created_at').execute();

  it('takes the first charge at once and starts the period then, as activate does', async () => {
    h.moveTo(start);
    await fundAddressBalance(h, 'grace', 200n * USDC);
    const first = await h.setUp({ funder: 'grace', tier: 'team', prefundPeriods: 0 });
    const activated = await lockedOut(h).activate(h.organizationId, { network: 'testnet', tier: 'team', interval: 'month', allowanceId: first.allowanceId });
    expect(activated).toMatchObject({ state: 'awaiting_first_charge', lastCharges: [] });
    await revokeAllowance(h, 'grace', first.allowanceId, first.capId);
    expect(await h.billing.pass.run()).toMatchObject({ cancelled: 1, charged: 0, failed: 0 });
    expect(await plan()).toMatchObject({ state: 'cancel_pending', currentPeriod: null });

    h.moveTo(start + 60_000);
    const second = await h.setUp({ funder: 'grace', tier: 'team', prefundPeriods: 0 });
    const resumed = await h.call('POST', '/v1/billing/onchain/activate', { network: 'testnet', tier: 'team', allowanceId: second.allowanceId });
    expect(resumed.status).toBe(200);
    expect(resumed.body.data).toMatchObject({
      state: 'active', allowance: { id: second.allowanceId },
      currentPeriod: { start: '2027-05-01T10:01:00.000Z', end: '2027-06-01T10:01:00.000Z' }, nextCharge: { at: '2027-06-01T10:01:00.000Z', amount: '49000000' },
    });
    expect(await charges()).toEqual([{ kind: 'first', status: 'succeeded', amount_micro_usdc: '49000000' }]);
    expect(await h.usdcBalance(h.account('grace').address)).toBe(151n * USDC);
    expect(await organization()).toEqual({ subscription_plan: 'team', subscription_status: 'active' });

    // The renewal then falls due as for any plan.
    h.moveTo(at('2027-06-01T10:01:00.000Z'));
    expect(await h.billing.pass.run()).toMatchObject({ charged: 1, failed: 0 });
    expect((await charges()).map((charge) => `${charge.kind} ${charge.status}`)).toEqual(['first succeeded', 'renewal succeeded']);
    const transitions = await h.db.database.db.selectFrom('plan_transitions').select(['trigger', 'to_state']).orderBy('seq').execute();
    expect(transitions).toEqual([
      { trigger: 'activate', to_state: 'awaiting_first_charge' },
      { trigger: 'allowance_revoked', to_state: 'cancel_pending' },
      { trigger: 'resume_unstarted', to_state: 'awaiting_first_charge' },
      { trigger: 'charge_succeeded', to_state: 'active' },
      { trigger: 'charge_succeeded', to_state: 'active' },
    ]);
  });
});

describe('on-chain plan: resuming a never-charged plan whose balance cannot pay the first charge', () => {
  let h: BillingHarness;
  beforeAll(async () => {
    h = await startBillingHarness({ seed: 'billing-resume-never-paid-declined', start: at('2027-05-01T09:00:00.000Z') });
  });
  afterAll(async () => h.close());

  it('ends it, as a first charge that fails does (nothing was ever paid)', async () => {
    h.moveTo(at('2027-05-01T10:00:00.000Z'));
    // grace holds USDC coins and no address balance; nothing is prefunded.
    const first = await h.setUp({ funder: 'grace', tier: 'team', prefundPeriods: 0 });
    expect((await lockedOut(h).activate(h.organizationId, { network: 'testnet', tier: 'team', interval: 'month', allowanceId: first.allowanceId })).state).toBe('awaiting_first_charge');
    await revokeAllowance(h, 'grace', first.allowanceId, first.capId);
    expect(await h.billing.pass.run()).toMatchObject({ cancelled: 1, failed: 0 });
    const second = await h.setUp({ funder: 'grace', tier: 'team', prefundPeriods: 0 });
    const resumed = await h.call('POST', '/v1/billing/onchain/activate', { network: 'testnet', tier: 'team', allowanceId: second.allowanceId });
    expect(resumed.status).toBe(200);
    expect(resumed.body.data).toMatchObject({ state: 'ended', ended: { trigger: 'charge_failed' }, currentPeriod: null, nextCharge: null });
    const organization = await h.db.database.db.selectFrom('organizations').select(['subscription_plan', 'subscription_status']).where('id', '=', h.organizationId).executeTakeFirstOrThrow();
    expect(organization).toEqual({ subscription_plan: null, subscription_status: 'ended' });
    expect(await h.billing.pass.run()).toMatchObject({ charged: 0, failed: 0 });
  });
});
