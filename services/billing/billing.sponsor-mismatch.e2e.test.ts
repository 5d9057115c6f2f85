import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { billingParts } from '../cli/billing-parts.js';
import { startBillingHarness, type BillingHarness } from '../../test/support/billing-harness.js';

const at = (iso: string) => Date.parse(iso);

/**
 * The sponsor key signs every charge, and the billing package takes charges only from the
 * spender its BillingConfig names (`ENotSpender`). A deployment whose SUIGW_BILLING_SPONSOR_KEY
 * was rotated without updating the config is our misconfiguration: the customer's allowance is
 * fine, so their plan must not be declined, moved to past_due or emailed; the renewal waits, as
 * for a node that is down, and is taken once the key is right again.
 */
describe('billing pass with a sponsor key that is not the billing config\'s spender', () => {
  let h: BillingHarness;
  beforeAll(async () => {
    h = await startBillingHarness({ seed: 'billing-sponsor-mismatch', start: at('2027-05-03T09:00:00.000Z') });
  });
  afterAll(async () => h.close());

  it('leaves the renewal unavailable (our failure), the plan active and nothing declined; the right key renews it', async () => {
    const { allowanceId } = await h.setUp({ funder: 'grace', tier: 'team', prefundPeriods: 2 });
    const activated = await h.call('POST', '/v1/billing/onchain/activate', { network: 'testnet', tier: 'team', interval: 'month', allowanceId });
    expect(activated.status).toBe(200);
    h.moveTo(at('2027-06-03T10:00:00.000Z'));

    // A funded account's key, so the charge is built and refused by the package, not for gas.
    const wrongKey = h.account('bob').keypair.getSecretKey();
    const misconfigured = billingParts({ config: { ...h.config, billing: { ...h.config.billing, sponsorKey: wrongKey } }, database: h.db.database, clock: h.clock, upstreams: h.upstreams });
    expect(await misconfigured.pass.run()).toMatchObject({ charged: 0, unavailable: 1, failed: 0 });

    const charges = () => h.db.database.db.selectFrom('billing_charges').select(['kind', 'status']).where('kind', '=', 'renewal').execute();
    // Recorded before signing, never signed: abandoned, nothing taken, nothing declined.
    expect(await charges()).toEqual([{ kind: 'renewal', status: 'abandoned' }]);
    const plan = await h.call('GET', '/v1/billing/onchain');
    expect(plan.status).toBe(200);
    expect(plan.body.data).toMatchObject({ state: 'active' });

    h.moveTo(at('2027-06-03T11:01:00.000Z'));
    expect(await h.billing.pass.run()).toMatchObject({ charged: 1, failed: 0 });
    expect((await charges()).map((charge) => charge.status).sort()).toEqual(['abandoned', 'succeeded']);
  });
});
