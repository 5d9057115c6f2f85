import { fromBase64 } from '@mysten/sui/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../identity/index.js';
import { chainWith, simnetChain, startBillingHarness, type BillingHarness } from '../../test/support/billing-harness.js';
import { BillingPass } from './billing-pass.js';

const at = (iso: string) => Date.parse(iso);

/**
 * A plan the pass cannot process must not hold back the organizations after it: before, the
 * error left the pass at that plan on every run (`suigw billing` exit 1), so no later plan was
 * ever renewed.
 */
describe('billing pass: a plan whose processing throws', () => {
  let h: BillingHarness;
  beforeAll(async () => {
    h = await startBillingHarness({ seed: 'billing-plan-failure', start: at('2027-05-03T09:00:00.000Z') });
  });
  afterAll(async () => h.close());

  async function planOf(organizationId: string, funderLabel: string): Promise<{ planId: string; allowanceId: string }> {
    const funder = h.account(funderLabel);
    const prepared = await h.billing.service.prepare(organizationId, { network: 'testnet', tier: 'team', interval: 'month', funderAddress: funder.address, prefundPeriods: 2 });
    const bytes = fromBase64(prepared.txBytes);
    const result = await h.sui.core.executeTransaction({ transaction: bytes, signatures: [(await funder.keypair.signTransaction(bytes)).signature], include: { objectTypes: true } });
    h.simnet.seal();
    const allowanceId = Object.entries(result.Transaction!.objectTypes!).find(([, type]) => type.includes('::allowance::Allowance<'))![0];
    const view = await h.billing.service.activate(organizationId, { network: 'testnet', tier: 'team', interval: 'month', allowanceId });
    expect(view.state).toBe('active');
    return { planId: view.id, allowanceId };
  }

  const renewals = (planId: string) => h.db.database.db.selectFrom('billing_charges').select('status').where('plan_id', '=', planId).where('kind', '=', 'renewal').execute();

  it('is skipped and counted; the plans after it are renewed, and the next pass renews it', async () => {
    // The failing plan is the older one, so the pass meets it first.
    const failing = await planOf(h.organizationId, 'grace');
    const { organization } = await createOrganization(h.db.database.db, h.clock, { name: 'Later', tier: 'free', projects: [{ name: 'T', network: 'testnet' }] });
    const later = await planOf(organization.id, 'ivan');
    h.moveTo(at('2027-06-03T10:00:00.000Z'));

    const chain = simnetChain(h);
    // Its allowance reads throw a plain error (not "the network is down") for the older plan's allowance.
    const failingChain = chainWith(chain, {
      allowance: (network, id) => (id === failing.allowanceId ? Promise.reject(new Error('unexpected answer for this allowance')) : chain.allowance(network, id)),
    });
    const logged: unknown[] = [];
    const pass = new BillingPass({
      db: h.db.database.db, clock: h.clock, chain: failingChain, charger: h.billing.service.charger,
      logger: { error: (fields: unknown) => logged.push(fields) } as never,
    });
    expect(await pass.run()).toMatchObject({ charged: 1, failed: 1 });
    expect(await renewals(later.planId)).toEqual([{ status: 'succeeded' }]);
    expect(await renewals(failing.planId)).toEqual([]);
    expect(logged).toEqual([expect.objectContaining({ planId: failing.planId })]);

    // Nothing of the failing plan was changed: the ordinary pass renews it.
    expect(await h.billing.pass.run()).toMatchObject({ charged: 1, failed: 0 });
    expect(await renewals(failing.planId)).toEqual([{ status: 'succeeded' }]);
  });
});
