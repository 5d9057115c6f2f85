import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fundAddressBalance, startBillingHarness, type BillingHarness } from '../../test/support/billing-harness.js';

const USDC = 1_000_000n;
const DAY_MS = 86_400_000;
const at = (iso: string) => Date.parse(iso);

/**
 * A past-due plan cancelled and set up again (rule 7 "resumes it") still owes its period: it
 * resumes past due, and the daily retries go on where they stopped. It resumed `active` with
 * its failed attempts, and the 7th failure (a transition from `active` the state table does not
 * have) threw out of the billing pass, which then stopped at that plan on every run.
 */
describe('on-chain plan: a past-due plan cancelled, then resumed', () => {
  let h: BillingHarness;
  let allowanceId: string;
  const renewal = at('2027-04-10T10:00:00.000Z');
  beforeAll(async () => {
    h = await startBillingHarness({ seed: 'billing-resume-past-due', start: at('2027-03-10T09:00:00.000Z') });
  });
  afterAll(async () => h.close());

  const plan = async () => (await h.call('GET', '/v1/billing/onchain')).body.data as { state: string; failedAttempts: number; nextCharge: { at: string } | null };
  const organization = () => h.db.database.db.selectFrom('organizations').select(['subscription_plan', 'subscription_status']).where('id', '=', h.organizationId).executeTakeFirstOrThrow();

  it('six daily failures, cancel, the same plan set up again: past_due with its six attempts, the next retry a day after the last', async () => {
    h.moveTo(at('2027-03-10T10:00:00.000Z'));
    ({ allowanceId } = await h.setUp({ funder: 'ivan', tier: 'team', prefundPeriods: 1 }));
    const activated = await h.call('POST', '/v1/billing/onchain/activate', { network: 'testnet', tier: 'team', allowanceId, notifyEmail: 'owner@example.com' });
    expect(activated.body.data).toMatchObject({ state: 'active', billingBalance: '0' });
    for (let attempt = 0; attempt < 6; attempt++) {
      h.moveTo(renewal + attempt * DAY_MS);
      expect(await h.billing.pass.run()).toMatchObject({ declined: 1, ended: 0 });
    }
    expect(await plan()).toMatchObject({ state: 'past_due', failedAttempts: 6, nextCharge: { at: new Date(renewal + 6 * DAY_MS).toISOString() } });

    h.moveTo(renewal + 5 * DAY_MS + 3_600_000);
    expect((await h.call('POST', '/v1/billing/onchain/cancel')).body.data).toMatchObject({ state: 'cancel_pending' });
    const resumed = await h.call('POST', '/v1/billing/onchain/activate', { network: 'testnet', tier: 'team', allowanceId });
    expect(resumed.status).toBe(200);
    expect(resumed.body.data).toMatchObject({ state: 'past_due', failedAttempts: 6, nextCharge: { at: new Date(renewal + 6 * DAY_MS).toISOString(), amount: String(49n * USDC) } });
    expect(await organization()).toEqual({ subscription_plan: 'team', subscription_status: 'past_due' });
    expect((await h.billing.pass.run()).declined).toBe(0);
  });

  it('the 7th failure ends it (Free), and the pass goes on', async () => {
    h.moveTo(renewal + 6 * DAY_MS);
    expect(await h.billing.pass.run()).toMatchObject({ declined: 0, ended: 1 });
    expect(await organization()).toEqual({ subscription_plan: null, subscription_status: 'ended' });
    const failed = await h.db.database.db.selectFrom('billing_emails').select('idempotency_key').where('kind', '=', 'charge_failed').orderBy('created_at').execute();
    expect(failed.map((email) => email.idempotency_key.split(':').at(-2))).toEqual(['1', '3', '5', '7']);
  });

  it('resumed with the money there: the retry pays the period and the plan is active again', async () => {
    h.moveTo(renewal + 10 * DAY_MS);
    ({ allowanceId } = await h.setUp({ funder: 'ivan', tier: 'team', prefundPeriods: 1 }));
    expect((await h.call('POST', '/v1/billing/onchain/activate', { network: 'testnet', tier: 'team', allowanceId })).body.data).toMatchObject({ state: 'active' });
    h.moveTo(renewal + 10 * DAY_MS + 31 * DAY_MS);
    expect(await h.billing.pass.run()).toMatchObject({ declined: 1 });
    h.moveTo(h.clock.now() + 3_600_000);
    expect((await h.call('POST', '/v1/billing/onchain/cancel')).body.data).toMatchObject({ state: 'cancel_pending' });
    expect((await h.call('POST', '/v1/billing/onchain/activate', { network: 'testnet', tier: 'team', allowanceId })).body.data).toMatchObject({ state: 'past_due', failedAttempts: 1 });
    await fundAddressBalance(h, 'ivan', 49n * USDC);
    h.moveTo(h.clock.now() + DAY_MS);
    expect(await h.billing.pass.run()).toMatchObject({ charged: 1, declined: 0 });
    expect(await plan()).toMatchObject({ state: 'active', failedAttempts: 0 });
    expect(await organization()).toEqual({ subscription_plan: 'team', subscription_status: 'active' });
  });
});
