import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdChargingLock, startBillingHarness, type BillingHarness } from '../../test/support/billing-harness.js';

const at = (iso: string) => Date.parse(iso);

/**
 * Spec: activate → awaiting_first_charge, "first charge taken within about a minute". Activate
 * took it only if no billing process held the charging lock at that instant, else left it to "that
 * pass (or the next)". Under Kubernetes every pass is one organization's (SUIGW_BILLING_ORGANIZATION),
 * so another organization's pass never takes it: it waited for the organization's own hourly
 * CronJob, up to an hour on paid limits, `change` and `cancel` answering 409 meanwhile.
 */
describe('activate while another billing process holds the charging lock', () => {
  let h: BillingHarness;
  beforeAll(async () => {
    h = await startBillingHarness({ seed: 'billing-activate-lock-wait', start: at('2027-03-10T12:00:00.000Z') });
  });
  afterAll(async () => h.close());

  it('waits for the lock and takes the first charge itself: 200 active', async () => {
    const { allowanceId } = await h.setUp({ funder: 'carol', tier: 'team', prefundPeriods: 1 });
    // Another billing process (another organization's pass) holds the lock until the plan is written.
    const { release, held } = await holdChargingLock(h);
    const activation = h.call('POST', '/v1/billing/onchain/activate', { network: 'testnet', tier: 'team', allowanceId });
    const planWritten = async () => (await h.db.database.db.selectFrom('onchain_plans').select('id').execute()).length > 0;
    while (!(await planWritten())) await new Promise((resolve) => setTimeout(resolve, 20));
    release();
    await held;
    const answer = await activation;
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ state: 'active', lastCharges: [expect.objectContaining({ kind: 'first', status: 'succeeded' })] });
  });
});
