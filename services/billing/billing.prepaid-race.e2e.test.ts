import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../core/index.js';
import { grantPrepaidCredit } from '../identity/index.js';
import { gatedChain, simnetChain, startBillingHarness, type BillingHarness } from '../../test/support/billing-harness.js';
import { BILLING_TREASURY } from '../simnet/index.js';
import { BillingService } from './billing-service.js';

const at = (iso: string) => Date.parse(iso);

/**
 * Billing rule 8: prepaid credits are spent before a plan starts, and an organization on a plan
 * receives no pay-per-request deposits. Activate checked the prepaid balance before its chain
 * reads and wrote the plan after them without looking again, so a grant that landed in between
 * (it saw no plan yet) left the organization on a plan holding prepaid credit.
 */
describe('a prepaid grant that lands while activate reads the chain', () => {
  let h: BillingHarness;
  beforeAll(async () => {
    h = await startBillingHarness({ seed: 'billing-prepaid-race', start: at('2027-03-10T12:00:00.000Z') });
  });
  afterAll(async () => h.close());

  it('activate sees it when it writes the plan: 409 PREPAID_BALANCE_PRESENT, no plan, nothing charged', async () => {
    const { allowanceId } = await h.setUp({ funder: 'carol', tier: 'team', prefundPeriods: 1 });
    const treasuryBefore = await h.usdcBalance(BILLING_TREASURY);
    // A second server process whose read of the allowance is held until the grant is booked.
    const gate = gatedChain(simnetChain(h));
    const other = new BillingService({ db: h.db.database.db, clock: h.clock, chain: gate.chain, lock: h.billing.lock });
    const activation = other.activate(h.organizationId, { network: 'testnet', tier: 'team', interval: 'month', allowanceId })
      .then((view) => ({ status: 200, code: undefined, state: view.state }), (error: unknown) => {
        if (!(error instanceof ApiError)) throw error;
        return { status: error.status, code: error.code, state: undefined };
      });
    await gate.waiting;
    expect(await grantPrepaidCredit(h.db.database.db, h.clock, h.organizationId, 10_000_000n)).toBe(10_000_000n);
    gate.release();
    expect(await activation).toEqual({ status: 409, code: 'PREPAID_BALANCE_PRESENT', state: undefined });

    expect(await h.db.database.db.selectFrom('onchain_plans').select('id').execute()).toEqual([]);
    expect(await h.db.database.db.selectFrom('billing_charges').select('id').execute()).toEqual([]);
    expect(await h.usdcBalance(BILLING_TREASURY)).toBe(treasuryBefore);
    expect(await h.db.database.db.selectFrom('organizations').select(['subscription_plan', 'prepaid_micro_usd']).where('id', '=', h.organizationId).executeTakeFirstOrThrow())
      .toEqual({ subscription_plan: null, prepaid_micro_usd: '10000000' });
  });
});
