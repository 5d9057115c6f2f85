import { SuiGrpcClient } from '@mysten/sui/grpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { ERRORS, type ErrorCode } from '../../core/index.js';
import { createKey, createOrganization } from '../../identity/index.js';
import { SIMNET_BILLING, startBillingHarness, type BillingHarness } from '../../../test/support/billing-harness.js';
import { call, type CallResult } from '../../../test/support/management-calls.js';
import { COIN_TYPES } from '../../simnet/index.js';
import { SuiChain } from '../chain/index.js';

const at = (iso: string) => Date.parse(iso);

/** The exact error body: the table's title, the code, the request id, and a message when there is one. */
function expectError(response: CallResult, code: ErrorCode): void {
  expect({ status: response.status, code: response.body.code }).toEqual({ status: ERRORS[code].status, code });
  const { message, ...rest } = response.body;
  expect(rest).toEqual({ error: ERRORS[code].title, code, requestId: expect.any(String), ...('retryAfter' in rest ? { retryAfter: 60 } : {}) });
  if (message !== undefined) expect(message).toEqual(expect.any(String));
}

describe('on-chain billing errors through HTTP: every billing code with its status and body', () => {
  let h: BillingHarness;
  let chain: SuiChain;
  let allowanceId: string;
  beforeAll(async () => {
    h = await startBillingHarness({ seed: 'billing-errors', start: at('2027-03-10T12:00:00.000Z') });
    chain = new SuiChain({
      clients: new Map([['testnet', new SuiGrpcClient({ network: 'localnet', baseUrl: h.simnet.grpcUrl })]]),
      settings: new Map([['testnet', SIMNET_BILLING]]),
      sponsor: h.account('deployer').keypair,
    });
  });
  afterAll(async () => h.close());

  const prepare = (body: Record<string, unknown>) => h.call('POST', '/v1/billing/onchain/prepare', { network: 'testnet', tier: 'team', funderAddress: h.account('grace').address, ...body });
  const activate = (body: Record<string, unknown>) => h.call('POST', '/v1/billing/onchain/activate', { network: 'testnet', tier: 'team', ...body });

  /** An allowance the funder signs from bytes built with chosen start, expiry, limit (what `prepare` never makes). */
  async function customAllowance(input: { startMs?: number; expirationMs?: number | null; periodLimit?: bigint; organization?: string }) {
    const funder = h.account('grace');
    const bytes = await chain.buildPrepare('testnet', {
      funder: funder.address, organization: input.organization ?? h.organizationId, periodLimit: input.periodLimit ?? 49_000_000n, windowMonths: 1,
      prefund: 0n, startMs: input.startMs ?? 0, expirationMs: input.expirationMs ?? null,
    });
    const { signature } = await funder.keypair.signTransaction(bytes);
    const result = await h.sui.core.executeTransaction({ transaction: bytes, signatures: [signature], include: { objectTypes: true } });
    h.simnet.seal();
    return Object.entries(result.Transaction!.objectTypes!).find(([, type]) => type.includes('::allowance::Allowance<'))![0];
  }

  it('GET /v1/billing/onchain without a plan: 404 ONCHAIN_SUBSCRIPTION_NOT_FOUND; change and cancel too', async () => {
    expectError(await h.call('GET', '/v1/billing/onchain'), 'ONCHAIN_SUBSCRIPTION_NOT_FOUND');
    expectError(await h.call('POST', '/v1/billing/onchain/cancel'), 'ONCHAIN_SUBSCRIPTION_NOT_FOUND');
    expectError(await h.call('POST', '/v1/billing/onchain/change', { tier: 'growth', when: 'now' }), 'ONCHAIN_SUBSCRIPTION_NOT_FOUND');
  });

  it('mainnet before protocol version 138 (simnet runs 104): 403 ONCHAIN_BILLING_DISABLED, and GET plans says so', async () => {
    expectError(await prepare({ network: 'mainnet' }), 'ONCHAIN_BILLING_DISABLED');
    expectError(await activate({ network: 'mainnet', allowanceId: '0x1' }), 'ONCHAIN_BILLING_DISABLED');
    const plans = await h.call('GET', '/v1/billing/plans');
    expect(plans.status).toBe(200);
    expect((plans.body.data as { networks: { network: string; enabled: boolean }[] }).networks.map((n) => [n.network, n.enabled])).toEqual([['testnet', true], ['mainnet', false]]);
  });

  it.each(['enterprise', 'free', 'wallet', 'Team', ''])('tier %j: 400 PLAN_NOT_AVAILABLE', async (tier) => {
    expectError(await prepare({ tier }), 'PLAN_NOT_AVAILABLE');
  });

  it.each(['abc', '0x', `0x${'g'.repeat(64)}`, `0x${'1'.repeat(65)}`])('funder %j: 400 INVALID_FUNDER_ADDRESS', async (funderAddress) => {
    expectError(await prepare({ funderAddress }), 'INVALID_FUNDER_ADDRESS');
  });

  it('the sponsor itself as funder: 400 INVALID_FUNDER_ADDRESS', async () => {
    expectError(await prepare({ funderAddress: h.account('deployer').address }), 'INVALID_FUNDER_ADDRESS');
  });

  it('a coin other than USDC: 400 COIN_NOT_ACCEPTED', async () => {
    expectError(await prepare({ coinType: COIN_TYPES.SUI }), 'COIN_NOT_ACCEPTED');
    // A string that is no type at all names no accepted coin either (it was a 500).
    expectError(await prepare({ coinType: 'not a type' }), 'COIN_NOT_ACCEPTED');
  });

  it('a funder with no coins at all: 400 TX_BUILD_FAILED', async () => {
    expectError(await prepare({ funderAddress: new Ed25519Keypair().toSuiAddress() }), 'TX_BUILD_FAILED');
  });

  it.each([[{ prefundPeriods: 13 }], [{ prefundPeriods: -1 }], [{ interval: 'week' }], [{ network: 'devnet' }], [{ extra: 1 }]])('%j: 400 VALIDATION_FAILED', async (body) => {
    const response = await prepare(body);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('VALIDATION_FAILED');
  });

  it('activate with an object that is no allowance: 404 ALLOWANCE_NOT_FOUND', async () => {
    expectError(await activate({ allowanceId: `0x${'ab'.repeat(32)}` }), 'ALLOWANCE_NOT_FOUND');
  });

  it('a genesis SUI allowance: 400 ALLOWANCE_WRONG_COIN; a USDC one for another spender: 400 ALLOWANCE_WRONG_SPENDER', async () => {
    const sui = h.simnet.ledger.listAllowances().find((allowance) => allowance.coinType === COIN_TYPES.SUI)!;
    expectError(await activate({ allowanceId: sui.objectId }), 'ALLOWANCE_WRONG_COIN');
    const usdc = h.simnet.ledger.listAllowances().find((allowance) => allowance.coinType === COIN_TYPES.USDC && allowance.app === undefined)!;
    expectError(await activate({ allowanceId: usdc.objectId }), 'ALLOWANCE_WRONG_SPENDER');
  });

  it('an allowance named for another organization: 400 ALLOWANCE_WRONG_ORGANIZATION', async () => {
    expectError(await activate({ allowanceId: await customAllowance({ organization: 'org_someone_else' }) }), 'ALLOWANCE_WRONG_ORGANIZATION');
  });

  it('a team allowance activated as growth: 400 ALLOWANCE_LIMIT_TOO_LOW (and as an annual plan)', async () => {
    const team = await customAllowance({});
    expectError(await activate({ tier: 'growth', allowanceId: team }), 'ALLOWANCE_LIMIT_TOO_LOW');
    expectError(await activate({ tier: 'team', interval: 'year', allowanceId: team }), 'ALLOWANCE_LIMIT_TOO_LOW');
  });

  it('an allowance that starts tomorrow: 400 ALLOWANCE_NOT_STARTED', async () => {
    expectError(await activate({ allowanceId: await customAllowance({ startMs: h.clock.now() + 86_400_000 }) }), 'ALLOWANCE_NOT_STARTED');
  });

  it('an allowance that ends before the next renewal and its retries: 400 ALLOWANCE_EXPIRES_TOO_SOON (one day later it is enough)', async () => {
    expectError(await activate({ allowanceId: await customAllowance({ expirationMs: h.clock.now() + 37 * 86_400_000 }) }), 'ALLOWANCE_EXPIRES_TOO_SOON');
  });

  it('an allowanceCapId that is not the allowance\'s cap: 400 ALLOWANCE_CAP_MISMATCH (another allowance\'s cap, the allowance itself, no object); nothing is activated', async () => {
    const first = await h.setUp({ funder: 'carol', tier: 'team', prefundPeriods: 0 });
    const second = await h.setUp({ funder: 'carol', tier: 'team', prefundPeriods: 0 });
    const otherCap = await activate({ allowanceId: first.allowanceId, allowanceCapId: second.capId });
    expectError(otherCap, 'ALLOWANCE_CAP_MISMATCH');
    expect(otherCap.body.message).toBe(`That cap revokes allowance ${second.allowanceId}, not ${first.allowanceId}.`);
    expectError(await activate({ allowanceId: first.allowanceId, allowanceCapId: first.allowanceId }), 'ALLOWANCE_CAP_MISMATCH');
    const missing = await activate({ allowanceId: first.allowanceId, allowanceCapId: `0x${'cd'.repeat(32)}` });
    expectError(missing, 'ALLOWANCE_CAP_MISMATCH');
    expect(missing.body.message).toBe('No AllowanceCap has that id.');
    expectError(await h.call('GET', '/v1/billing/onchain'), 'ONCHAIN_SUBSCRIPTION_NOT_FOUND');
  });

  it('a card subscription: 409 STRIPE_SUBSCRIPTION_ACTIVE; prepaid credits: 409 PREPAID_BALANCE_PRESENT', async () => {
    const organizations = h.db.database.db.updateTable('organizations').where('id', '=', h.organizationId);
    await organizations.set({ card_subscription_active: true }).execute();
    expectError(await prepare({}), 'STRIPE_SUBSCRIPTION_ACTIVE');
    await organizations.set({ card_subscription_active: false, prepaid_micro_usd: '1' }).execute();
    expectError(await prepare({}), 'PREPAID_BALANCE_PRESENT');
    expectError(await activate({ allowanceId: '0x1' }), 'PREPAID_BALANCE_PRESENT');
    await organizations.set({ prepaid_micro_usd: '0' }).execute();
  });

  it('with a live plan: activate again 409 ONCHAIN_SUBSCRIPTION_EXISTS, same tier 400 PLAN_UNCHANGED, another funder 400 ALLOWANCE_WRONG_FUNDER, a charge running 409 CHARGE_IN_PROGRESS', async () => {
    ({ allowanceId } = await h.setUp({ funder: 'grace', tier: 'team', prefundPeriods: 2 }));
    expect((await activate({ allowanceId })).status).toBe(200);
    expectError(await activate({ allowanceId }), 'ONCHAIN_SUBSCRIPTION_EXISTS');
    expectError(await activate({ tier: 'growth', allowanceId }), 'ONCHAIN_SUBSCRIPTION_EXISTS');
    expectError(await activate({ tier: 'team', interval: 'year', allowanceId }), 'ONCHAIN_SUBSCRIPTION_EXISTS');
    expectError(await prepare({}), 'ONCHAIN_SUBSCRIPTION_EXISTS');
    expectError(await h.call('POST', '/v1/billing/onchain/change', { tier: 'team', when: 'now' }), 'PLAN_UNCHANGED');
    expectError(await h.call('POST', '/v1/billing/onchain/change', { tier: 'growth', when: 'now' }), 'ALLOWANCE_NOT_FOUND');
    const ivan = h.account('ivan');
    const bytes = await chain.buildPrepare('testnet', { funder: ivan.address, organization: h.organizationId, periodLimit: 199_000_000n, windowMonths: 1, prefund: 0n, startMs: 0, expirationMs: null });
    const result = await h.sui.core.executeTransaction({ transaction: bytes, signatures: [(await ivan.keypair.signTransaction(bytes)).signature], include: { objectTypes: true } });
    const ivans = Object.entries(result.Transaction!.objectTypes!).find(([, type]) => type.includes('::allowance::Allowance<'))![0];
    expectError(await h.call('POST', '/v1/billing/onchain/change', { tier: 'growth', when: 'now', allowanceId: ivans }), 'ALLOWANCE_WRONG_FUNDER');
    const plan = await h.db.database.db.selectFrom('onchain_plans').select('id').executeTakeFirstOrThrow();
    await h.db.database.db.insertInto('billing_charges').values({
      id: 'chg_inflight', plan_id: plan.id, period_key: new Date(h.clock.now()), kind: 'renewal', tier: 'team', allowance_id: allowanceId,
      amount_micro_usdc: 49_000_000n, status: 'pending', created_at: new Date(h.clock.now()), updated_at: new Date(h.clock.now()),
    }).execute();
    const busy = await h.call('POST', '/v1/billing/onchain/cancel');
    expectError(busy, 'CHARGE_IN_PROGRESS');
    expect(busy.headers['retry-after']).toBe('60');
    expectError(await h.call('POST', '/v1/billing/onchain/change', { tier: 'growth', when: 'next_renewal', allowanceId: ivans }), 'CHARGE_IN_PROGRESS');
    await h.db.database.db.deleteFrom('billing_charges').where('id', '=', 'chg_inflight').execute();
  });

  it('another organization cannot use this plan’s allowance: 400 ALLOWANCE_WRONG_ORGANIZATION (the name binds it)', async () => {
    const other = await createOrganization(h.db.database.db, h.clock, { name: 'Other', tier: 'free', projects: [{ name: 'T', network: 'testnet' }] });
    const key = await createKey(h.db.database, h.clock, { kind: 'operator' }, { organizationId: other.organization.id, projectId: other.projects[0]!.id, name: 'k', scopes: ['manage'], expiresInDays: 30 });
    const response = await call({ app: h.app } as never, 'POST', '/v1/billing/onchain/activate', { key: key.apiKey, network: 'testnet', body: { network: 'testnet', tier: 'team', allowanceId } });
    expectError(response, 'ALLOWANCE_WRONG_ORGANIZATION');
  });

  it('a key without the manage scope: 403 INSUFFICIENT_SCOPE on every billing route', async () => {
    const key = await createKey(h.db.database, h.clock, { kind: 'operator' }, { organizationId: h.organizationId, projectId: (await h.db.database.db.selectFrom('projects').select('id').where('network', '=', 'testnet').executeTakeFirstOrThrow()).id, name: 'data', scopes: ['data'], expiresInDays: 30 });
    for (const [method, path] of [['GET', '/v1/billing/plans'], ['GET', '/v1/billing/onchain'], ['POST', '/v1/billing/onchain/cancel']] as const) {
      expectError(await call({ app: h.app } as never, method, path, { key: key.apiKey, network: 'testnet' }), 'INSUFFICIENT_SCOPE');
    }
  });

  it('the node down: GET /v1/billing/onchain is 503 BALANCE_UNAVAILABLE with Retry-After', async () => {
    await h.simnet.stop();
    const response = await h.call('GET', '/v1/billing/onchain');
    expectError(response, 'BALANCE_UNAVAILABLE');
    expect(response.headers['retry-after']).toBe('60');
  });
});
