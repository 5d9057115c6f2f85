import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBillingHarness, type BillingHarness } from '../../test/support/billing-harness.js';

const at = (iso: string) => Date.parse(iso);

/**
 * The reminder and the failed-charge email name the charge: at a renewal that applies a pending
 * change, its tier, price and allowance, not the plan's current ones (a pending upgrade to growth
 * was emailed as "the charge of 49.00 USDC for the team plan failed", so the owner topped up 49).
 */
describe('failed-charge email of a renewal that applies a pending change', () => {
  let h: BillingHarness;
  beforeAll(async () => {
    h = await startBillingHarness({ seed: 'billing-failed-charge-email', start: at('2027-03-10T09:00:00.000Z') });
  });
  afterAll(async () => h.close());

  it('a pending upgrade to growth: the reminder and the failed-charge email say growth, 199.00 USDC and the growth allowance', async () => {
    h.moveTo(at('2027-03-10T10:00:00.000Z'));
    const team = await h.setUp({ funder: 'ivan', tier: 'team', prefundPeriods: 1 });
    expect((await h.call('POST', '/v1/billing/onchain/activate', { network: 'testnet', tier: 'team', allowanceId: team.allowanceId, notifyEmail: 'owner@acme.test' })).body.data).toMatchObject({ state: 'active', billingBalance: '0' });
    const growth = await h.setUp({ funder: 'ivan', tier: 'growth', prefundPeriods: 0 });
    const changed = await h.call('POST', '/v1/billing/onchain/change', { tier: 'growth', when: 'next_renewal', allowanceId: growth.allowanceId });
    expect(changed.body.data).toMatchObject({ plan: { tier: 'team' }, pendingChange: { tier: 'growth', allowanceId: growth.allowanceId } });

    h.moveTo(at('2027-04-03T10:00:00.000Z'));
    expect(await h.billing.pass.run()).toMatchObject({ reminders: 1 });
    h.moveTo(at('2027-04-10T10:00:00.000Z'));
    expect(await h.billing.pass.run()).toMatchObject({ declined: 1 });
    const emails = await h.db.database.db.selectFrom('billing_emails').select(['kind', 'recipient', 'subject', 'body']).orderBy('created_at').execute();
    expect(emails).toEqual([{
      kind: 'renewal_reminder', recipient: 'owner@acme.test',
      subject: 'Your growth plan renews on 2027-04-10: add USDC',
      body: expect.stringMatching(/^The growth plan of organization \S+ renews on 2027-04-10 for 199\.00 USDC\.\n/),
    }, {
      kind: 'charge_failed', recipient: 'owner@acme.test',
      subject: 'Charge for your growth plan failed (attempt 1 of 7)',
      body: [
        `The charge of 199.00 USDC for the growth plan of organization ${h.organizationId} failed: address balance 0 below 199000000.`,
        `We try again once a day, 7 times in all. Check the allowance ${growth.allowanceId} and the USDC address balance of ${h.account('ivan').address}.`,
      ].join('\n'),
    }]);
  });
});
