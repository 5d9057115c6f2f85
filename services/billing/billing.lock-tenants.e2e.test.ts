import { fromBase64 } from '@mysten/sui/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../core/index.js';
import { createOrganization } from '../identity/index.js';
import { gatedChain, simnetChain, startBillingHarness, type BillingHarness } from '../../test/support/billing-harness.js';
import { BillingService } from './billing-service.js';

const at = (iso: string) => Date.parse(iso);

/**
 * The charging lock is one per deployment (the sponsor's gas coin has one signer). Deciding an
 * upgrade `now` (the plan, the allowance and the balance read from the chain) held it too: while
 * one organization's request waited on the node, every other organization's upgrade `now` was
 * 409 CHARGE_IN_PROGRESS and the billing pass (every organization's renewals) was skipped, so any
 * tenant with a plan could keep both from happening by sending upgrades that never charge.
 */
describe('one organization deciding an upgrade `now` holds nobody else’s charges', () => {
  let h: BillingHarness;
  beforeAll(async () => {
    h = await startBillingHarness({ seed: 'billing-lock-tenants', start: at('2027-03-10T12:00:00.000Z') });
  });
  afterAll(async () => h.close());

  it('another organization’s upgrade `now` is charged, and the billing pass runs, while a rival’s allowance read is pending', async () => {
    // The rival: an organization of its own, on a team plan paid by grace.
    const rival = await createOrganization(h.db.database.db, h.clock, { name: 'Rival', tier: 'free', projects: [{ name: 'Staging', network: 'testnet' }] });
    const rivalId = rival.organization.id;
    const grace = h.account('grace');
    const prepared = await h.billing.service.prepare(rivalId, { network: 'testnet', tier: 'team', interval: 'month', funderAddress: grace.address, prefundPeriods: 1 });
    const bytes = fromBase64(prepared.txBytes);
    const executed = await h.sui.core.executeTransaction({ transaction: bytes, signatures: [(await grace.keypair.signTransaction(bytes)).signature], include: { objectTypes: true } });
    h.simnet.seal();
    const rivalAllowance = Object.entries(executed.Transaction!.objectTypes!).find(([, type]) => type.includes('::allowance::Allowance<'))![0];
    expect((await h.billing.service.activate(rivalId, { network: 'testnet', tier: 'team', interval: 'month', allowanceId: rivalAllowance })).state).toBe('active');

    // The victim: the harness's organization, on a team plan, with an allowance for growth.
    const { allowanceId: team } = await h.setUp({ funder: 'carol', tier: 'team', prefundPeriods: 1 });
    expect((await h.call('POST', '/v1/billing/onchain/activate', { network: 'testnet', tier: 'team', allowanceId: team })).status).toBe(200);
    const growth = await h.setUp({ funder: 'carol', tier: 'growth', prefundPeriods: 2 });

    // The rival's upgrade `now`, in the same process (same lock), waits on its allowance read.
    const gate = gatedChain(simnetChain(h));
    const other = new BillingService({ db: h.db.database.db, clock: h.clock, chain: gate.chain, lock: h.billing.lock });
    const held = other.change(rivalId, { tier: 'growth', when: 'now', allowanceId: `0x${'ab'.repeat(32)}` })
      .then(() => 200, (error: unknown) => (error instanceof ApiError ? error.code : Promise.reject(error)));
    await gate.waiting;
    try {
        const upgrade = await h.call('POST', '/v1/billing/onchain/change', { tier: 'growth', when: 'now', allowanceId: growth.allowanceId });
      expect({ status: upgrade.status, code: upgrade.body.code }).toEqual({ status: 200, code: undefined });
      expect(upgrade.body.data).toMatchObject({ state: 'active', plan: { tier: 'growth' }, pendingChange: null });
      // The deployment's charging lock is free for the billing pass.
      expect(await h.billing.lock.tryRun(async () => 'ran')).toBe('ran');
    } finally {
      gate.release();
    }
    expect(await held).toBe('ALLOWANCE_NOT_FOUND');
  });
});
