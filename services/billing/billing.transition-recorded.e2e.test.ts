import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBillingHarness, type BillingHarness } from '../../test/support/billing-harness.js';

const at = (iso: string) => Date.parse(iso);

/**
 * A pass's decision whose transition key is recorded already writes nothing. It wrote the plan's
 * fields anyway (attempts, next attempt, email) and reported the outcome, while the state did not
 * move: how a second revocation after a resume left a plan `active` for ever. Now the plan's
 * processing fails, visibly, and the plan is left as it was.
 */
describe('on-chain plan: a pass decision whose transition was recorded already', () => {
  let h: BillingHarness;
  beforeAll(async () => {
    h = await startBillingHarness({ seed: 'billing-transition-recorded', start: at('2027-05-01T09:00:00.000Z') });
  });
  afterAll(async () => h.close());

  it('is not written, not reported as done: counted failed, the plan as it was, no email', async () => {
    h.moveTo(at('2027-05-01T10:00:00.000Z'));
    const { allowanceId } = await h.setUp({ funder: 'ivan', tier: 'team', prefundPeriods: 1 });
    const activated = await h.call('POST', '/v1/billing/onchain/activate', { network: 'testnet', tier: 'team', allowanceId, notifyEmail: 'owner@example.com' });
    expect(activated.body.data).toMatchObject({ state: 'active', billingBalance: '0' });
    const planId = (activated.body.data as { id: string }).id;
    const renewal = at('2027-06-01T10:00:00.000Z');
    await h.db.database.db.insertInto('plan_transitions').values({
      id: 'ptr_recorded', plan_id: planId, from_state: 'active', to_state: 'past_due', trigger: 'charge_failed', actor: 'billing',
      reason: 'recorded before', idempotency_key: `${planId}:${renewal}:failed:1`, at: new Date(renewal),
    }).execute();
    const before = await h.db.database.db.selectFrom('onchain_plans').selectAll().where('id', '=', planId).executeTakeFirstOrThrow();

    h.moveTo(renewal);
    expect(await h.billing.pass.run()).toMatchObject({ declined: 0, failed: 1 });
    expect(await h.db.database.db.selectFrom('onchain_plans').selectAll().where('id', '=', planId).executeTakeFirstOrThrow()).toEqual(before);
    expect(await h.db.database.db.selectFrom('billing_emails').select('kind').execute()).toEqual([]);
  });
});
