import { SuiGrpcClient } from '@mysten/sui/grpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../core/index.js';
import { chainWith, revokeAllowance, SIMNET_BILLING, startBillingHarness, type BillingHarness } from '../../test/support/billing-harness.js';
import { BillingService } from './billing-service.js';
import { SuiChain } from './chain/index.js';

const at = (iso: string) => Date.parse(iso);

/**
 * A plan lives on one network: its allowance is an object of that network's chain, where every
 * charge reads it. Resuming a cancelled plan (rule 7) or preparing its upgrade with the other
 * network's body was accepted: the allowance was verified on the network named, then stored on
 * the plan of the other, whose next renewal found no such object there ("revoked") and cancelled
 * the plan again; the prepared upgrade's allowance was never found by `change`.
 */
describe('on-chain plan: prepare and resume on another network than the plan’s', () => {
  let h: BillingHarness;
  let service: BillingService;
  beforeAll(async () => {
    h = await startBillingHarness({ seed: 'billing-resume-network', start: at('2027-05-01T09:00:00.000Z') });
    // Mainnet with allowances (protocol 138) beside testnet, both served by the harness's simnet.
    const client = new SuiGrpcClient({ network: 'localnet', baseUrl: h.simnet.grpcUrl });
    const chain = chainWith(new SuiChain({
      clients: new Map([['testnet', client], ['mainnet', client]]),
      settings: new Map([['testnet', SIMNET_BILLING], ['mainnet', SIMNET_BILLING]]),
      sponsor: h.account('deployer').keypair,
    }), { protocolVersion: async () => 138 });
    service = new BillingService({ db: h.db.database.db, clock: h.clock, chain, lock: h.billing.lock });
  });
  afterAll(async () => h.close());

  const outcome = (promise: Promise<unknown>) => promise.then(() => ({ status: 200, code: undefined }), (error: unknown) => {
    if (!(error instanceof ApiError)) throw error;
    return { status: error.status, code: error.code };
  });

  it('a testnet plan is neither resumed nor upgraded with mainnet: 400 PLAN_UNCHANGED and 409 ONCHAIN_SUBSCRIPTION_EXISTS', async () => {
    h.moveTo(at('2027-05-01T10:00:00.000Z'));
    const first = await h.setUp({ funder: 'carol', tier: 'team', prefundPeriods: 2 });
    expect((await service.activate(h.organizationId, { network: 'testnet', tier: 'team', interval: 'month', allowanceId: first.allowanceId })).state).toBe('active');
    const funderAddress = h.account('carol').address;
    expect(await outcome(service.prepare(h.organizationId, { network: 'mainnet', tier: 'growth', interval: 'month', funderAddress, prefundPeriods: 0 })))
      .toEqual({ status: 409, code: 'ONCHAIN_SUBSCRIPTION_EXISTS' });
    await revokeAllowance(h, 'carol', first.allowanceId, first.capId);
    h.moveTo(at('2027-06-01T10:00:00.000Z'));
    expect(await h.billing.pass.run()).toMatchObject({ cancelled: 1 });

    const second = await h.setUp({ funder: 'carol', tier: 'team', prefundPeriods: 0 });
    expect(await outcome(service.prepare(h.organizationId, { network: 'mainnet', tier: 'team', interval: 'month', funderAddress, prefundPeriods: 0 })))
      .toEqual({ status: 400, code: 'PLAN_UNCHANGED' });
    expect(await outcome(service.activate(h.organizationId, { network: 'mainnet', tier: 'team', interval: 'month', allowanceId: second.allowanceId })))
      .toEqual({ status: 400, code: 'PLAN_UNCHANGED' });
    expect((await service.current(h.organizationId))).toMatchObject({ state: 'cancel_pending', network: 'testnet', allowance: { id: first.allowanceId } });
    // On its own network it resumes.
    expect((await service.activate(h.organizationId, { network: 'testnet', tier: 'team', interval: 'month', allowanceId: second.allowanceId }))).toMatchObject({ state: 'active', allowance: { id: second.allowanceId } });
  });
});
