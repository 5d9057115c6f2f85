import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fundAddressBalance, gatedChain, revokeAllowance, simnetChain, startBillingHarness, type BillingHarness } from '../../test/support/billing-harness.js';
import { BillingPass, type PassReport } from './billing-pass.js';
import { Charger } from './charger.js';

const USDC = 1_000_000n;
const at = (iso: string) => Date.parse(iso);

/**
 * A cancel or change that lands while the billing pass reads the chain on the paths that charge
 * nothing (the balance below the price, the allowance revoked): the pass's decision from that read
 * is written only on the plan it was made on; else it is made again on the plan as it is now.
 * Each case has its own harness, so that one failing leaves the others' plans as they were.
 */

/** A harness for one plan, and the pass of another billing process whose allowance read is held until `during` has been answered. */
function raceOn(seed: string) {
  const race = {} as { h: BillingHarness; passWith(during: () => Promise<void>, read?: 'allowance' | 'addressBalance'): Promise<PassReport>; cancelDuringRead(): Promise<PassReport>; triggers(planId: string): Promise<string[]> };
  beforeAll(async () => {
    race.h = await startBillingHarness({ seed, start: at('2027-03-10T12:00:00.000Z') });
  });
  afterAll(async () => race.h.close());
  race.passWith = async (during, read) => {
    const { h } = race;
    const gate = gatedChain(simnetChain(h), read);
    const pass = new BillingPass({ db: h.db.database.db, clock: h.clock, chain: gate.chain, charger: new Charger({ db: h.db.database.db, chain: gate.chain, clock: h.clock }) });
    const running = pass.run();
    await gate.waiting;
    await during();
    gate.release();
    return running;
  };
  race.cancelDuringRead = () => race.passWith(async () => {
    expect((await race.h.call('POST', '/v1/billing/onchain/cancel')).body.data).toMatchObject({ state: 'cancel_pending' });
  });
  race.triggers = async (planId) => (await race.h.db.database.db.selectFrom('plan_transitions').select('trigger').where('plan_id', '=', planId).orderBy('seq').execute()).map((row) => row.trigger);
  return race;
}

/** grace's team plan, activated on testnet with `prefundPeriods` of allowance: the plan as activation answered it and what it was set up with. */
async function activeTeamPlan(h: BillingHarness, prefundPeriods: number, extra: Record<string, unknown> = {}) {
  const { allowanceId, capId } = await h.setUp({ funder: 'grace', tier: 'team', prefundPeriods });
  const activated = await h.call('POST', '/v1/billing/onchain/activate', { network: 'testnet', tier: 'team', allowanceId, ...extra });
  expect(activated.body.data).toMatchObject({ state: 'active' });
  const plan = activated.body.data as { id: string; billingBalance: string };
  return { planId: plan.id, plan, allowanceId, capId };
}

describe('a cancel while the billing pass reads the chain and finds the balance below the renewal\'s price', () => {
  const race = raceOn('billing-pass-read-race-balance');
  it('the plan ends at its period end: no failed attempt, no error', async () => {
    const { h } = race;
    const { planId, plan } = await activeTeamPlan(h, 1);
    expect(plan.billingBalance).toBe('0');
    h.moveTo(at('2027-04-10T12:00:00.000Z'));

    // It was { failed: 1 }: the pass wrote the failed attempt on the cancelled plan (no charge_failed from cancel_pending) and threw.
    expect(await race.cancelDuringRead()).toMatchObject({ charged: 0, declined: 0, ended: 1, failed: 0 });
    expect((await h.call('GET', '/v1/billing/onchain')).body.data).toMatchObject({ state: 'ended', failedAttempts: 0, ended: { trigger: 'period_ended' } });
    expect(await race.triggers(planId)).toEqual(['activate', 'charge_succeeded', 'cancel', 'period_ended']);
  });
});

describe('a downgrade `next_renewal` while the billing pass reads the chain and finds the balance below the old price', () => {
  const race = raceOn('billing-pass-read-race-downgrade');
  it('the renewal is charged at the new price, not declined at the old one', async () => {
    const { h } = race;
    const { allowanceId } = await h.setUp({ funder: 'grace', tier: 'growth', prefundPeriods: 1 });
    expect((await h.call('POST', '/v1/billing/onchain/activate', { network: 'testnet', tier: 'growth', allowanceId })).body.data).toMatchObject({ state: 'active', billingBalance: '0' });
    await fundAddressBalance(h, 'grace', 49n * USDC);
    h.moveTo(at('2027-04-10T12:00:00.000Z'));

    // It was { declined: 1 }: past_due, attempt 1 of the growth renewal failed, though team's 49 were there.
    expect(await race.passWith(async () => {
      expect((await h.call('POST', '/v1/billing/onchain/change', { tier: 'team', when: 'next_renewal' })).body.data).toMatchObject({ pendingChange: { tier: 'team' } });
    })).toMatchObject({ charged: 1, declined: 0, failed: 0 });
    expect((await h.call('GET', '/v1/billing/onchain')).body.data).toMatchObject({
      state: 'active', plan: { tier: 'team', price: '49000000' }, pendingChange: null, failedAttempts: 0, billingBalance: '0',
      currentPeriod: { start: '2027-04-10T12:00:00.000Z', end: '2027-05-10T12:00:00.000Z' },
    });
  });
});

describe('a cancel while the billing pass reads the chain and finds the allowance revoked', () => {
  const race = raceOn('billing-pass-read-race-revoked');
  it('the plan ends at its period end, no error', async () => {
    const { h } = race;
    const { planId, allowanceId, capId } = await activeTeamPlan(h, 2);
    await revokeAllowance(h, 'grace', allowanceId, capId);
    h.moveTo(at('2027-04-10T12:00:00.000Z'));

    // It was { failed: 1 }: allowance_revoked written on the cancelled plan (no such row from cancel_pending) threw.
    expect(await race.cancelDuringRead()).toMatchObject({ cancelled: 0, ended: 1, failed: 0 });
    expect(await race.triggers(planId)).toEqual(['activate', 'charge_succeeded', 'cancel', 'period_ended']);
  });
});

describe('a cancel while the billing pass reads the balance for the 7-day reminder', () => {
  const race = raceOn('billing-pass-read-race-reminder');
  it('no reminder to top up for the renewal the cancel called off', async () => {
    const { h } = race;
    expect((await activeTeamPlan(h, 1, { notifyEmail: 'owner@example.com' })).plan.billingBalance).toBe('0');
    h.moveTo(at('2027-04-04T12:00:00.000Z'));

    // It was { reminders: 1 }: "Your team plan renews on 2027-04-10: add USDC", queued after the cancel was answered.
    expect(await race.passWith(async () => {
      expect((await h.call('POST', '/v1/billing/onchain/cancel')).body.data).toMatchObject({ state: 'cancel_pending' });
    }, 'addressBalance')).toMatchObject({ reminders: 0, failed: 0 });
    expect(await h.db.database.db.selectFrom('billing_emails').select('kind').execute()).toEqual([]);
  });
});
