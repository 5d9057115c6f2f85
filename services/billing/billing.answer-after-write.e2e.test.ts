import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../core/index.js';
import { buildGatewayApp } from '../cli/gateway-app.js';
import type { App } from '../route-contract/index.js';
import { SIMNET_BILLING, chainWith, fundAddressBalance, simnetChain, startBillingHarness, type BillingHarness } from '../../test/support/billing-harness.js';
import { call } from '../../test/support/management-calls.js';
import { ChainUnavailable } from './chain/index.js';
import { BillingService } from './billing-service.js';

const USDC = 1_000_000n;
const at = (iso: string) => Date.parse(iso);

/**
 * The answer of activate, change and cancel is the plan, with the funder's balance read from the
 * chain. That read failing after the plan was written (a charge taken) answered 503
 * BALANCE_UNAVAILABLE, which for an upgrade `now` says "nothing was charged": the owner, told to
 * try again, had been charged. Now the answer is the plan written, its balance unknown (null).
 */
describe('on-chain plan: the balance cannot be read once the plan is written', () => {
  let h: BillingHarness;
  let app: App;
  /** The funder's balance reads: `down after a charge` goes `down` once a charge is sent. */
  let balanceRead: 'up' | 'down' | 'down after a charge' = 'up';
  let team: { allowanceId: string };
  let growth: { allowanceId: string };
  beforeAll(async () => {
    h = await startBillingHarness({ seed: 'billing-answer-after-write', start: at('2027-03-10T12:00:00.000Z') });
    const inner = simnetChain(h);
    const chain = chainWith(inner, {
      submit: async (network, charge) => {
        const sent = await inner.submit(network, charge);
        if (balanceRead === 'down after a charge') balanceRead = 'down';
        return sent;
      },
      addressBalance: async (network, owner, coinType) => {
        if (balanceRead === 'down') throw new ChainUnavailable('node down');
        return inner.addressBalance(network, owner, coinType);
      },
    });
    const service = new BillingService({ db: h.db.database.db, clock: h.clock, chain, lock: h.billing.lock });
    app = await buildGatewayApp({ config: h.config, database: h.db.database, clock: h.clock, logger: createLogger('silent'), upstreams: h.upstreams, billing: { ...h.billing, service } });
    await app.ready();
    await fundAddressBalance(h, 'carol', 300n * USDC);
  });
  afterAll(async () => {
    await app?.close();
    await h.close();
  });

  const post = (path: string, body?: unknown) => call({ app } as never, 'POST', path, { key: h.adminKey, body, network: 'testnet' });
  const charges = () => h.db.database.db.selectFrom('billing_charges').select(['kind', 'status', 'tier']).orderBy('created_at').execute();

  it('activate: the first charge taken, then the read fails: 200, active, billingBalance null', async () => {
    team = await h.setUp({ funder: 'carol', tier: 'team', prefundPeriods: 0 });
    balanceRead = 'down after a charge';
    const activated = await post('/v1/billing/onchain/activate', { network: 'testnet', tier: 'team', allowanceId: team.allowanceId });
    expect(activated.status).toBe(200);
    expect(activated.body.data).toMatchObject({ state: 'active', plan: { tier: 'team', price: '49000000' }, billingBalance: null });
    expect(await charges()).toEqual([{ kind: 'first', status: 'succeeded', tier: 'team' }]);
  });

  it('change `now` when the balance cannot be read before charging: 503 BALANCE_UNAVAILABLE, nothing charged', async () => {
    h.moveTo(at('2027-03-20T12:00:00.000Z'));
    balanceRead = 'up';
    growth = await h.setUp({ funder: 'carol', tier: 'growth', prefundPeriods: 0 });
    balanceRead = 'down';
    const refused = await post('/v1/billing/onchain/change', { tier: 'growth', when: 'now', allowanceId: growth.allowanceId });
    expect({ status: refused.status, body: refused.body }).toEqual({
      status: 503,
      body: { error: 'Balance unavailable', code: 'BALANCE_UNAVAILABLE', requestId: expect.any(String), message: 'The balance cannot be read right now; nothing was charged. Try again.', retryAfter: 60 },
    });
    expect(await charges()).toEqual([{ kind: 'first', status: 'succeeded', tier: 'team' }]);
  });

  it('change `now` charged, then the read fails: 200 with the upgraded plan, billingBalance null', async () => {
    balanceRead = 'down after a charge';
    const changed = await post('/v1/billing/onchain/change', { tier: 'growth', when: 'now', allowanceId: growth.allowanceId });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({
      state: 'active', plan: { tier: 'growth', price: '199000000' }, allowance: { id: growth.allowanceId }, pendingChange: null, billingBalance: null,
      currentPeriod: { start: '2027-03-20T12:00:00.000Z', end: '2027-04-20T12:00:00.000Z' },
    });
    expect(await charges()).toEqual([{ kind: 'first', status: 'succeeded', tier: 'team' }, { kind: 'upgrade', status: 'succeeded', tier: 'growth' }]);
  });

  it('change `next_renewal`, cancel and resume, the node down: each written, answered 200 with billingBalance null', async () => {
    expect(balanceRead).toBe('down');
    const downgraded = await post('/v1/billing/onchain/change', { tier: 'team', when: 'next_renewal' });
    expect(downgraded.status).toBe(200);
    expect(downgraded.body.data).toMatchObject({ state: 'active', pendingChange: { tier: 'team', allowanceId: null, at: 'next_renewal' }, billingBalance: null });
    const cancelled = await post('/v1/billing/onchain/cancel');
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.data).toMatchObject({ state: 'cancel_pending', pendingChange: null, billingBalance: null });
    const resumed = await post('/v1/billing/onchain/activate', { network: 'testnet', tier: 'growth', allowanceId: growth.allowanceId });
    expect(resumed.status).toBe(200);
    expect(resumed.body.data).toMatchObject({ state: 'active', plan: { tier: 'growth' }, billingBalance: null });
  });

  it('the node back: the balance is shown again', async () => {
    balanceRead = 'up';
    const read = await call({ app } as never, 'GET', '/v1/billing/onchain', { key: h.adminKey, network: 'testnet' });
    expect(read.status).toBe(200);
    const funder = h.account('carol').address;
    expect(read.body.data).toMatchObject({ state: 'active', funder, billingBalance: String(await simnetChain(h).addressBalance('testnet', funder, SIMNET_BILLING.usdcType)) });
  });
});
