import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../core/index.js';
import { buildGatewayApp } from '../cli/gateway-app.js';
import type { App } from '../route-contract/index.js';
import { chainWith, simnetChain, startBillingHarness, type BillingHarness } from '../../test/support/billing-harness.js';
import { call } from '../../test/support/management-calls.js';
import { BILLING_TREASURY } from '../simnet/index.js';
import { ChainUnavailable, type Chain } from './chain/index.js';
import { BillingService } from './billing-service.js';

const at = (iso: string) => Date.parse(iso);

const IN_FLIGHT = 'The upgrade\'s charge was signed but sending it failed, so it may have been taken (never twice). The next billing pass settles it and writes it to the plan: paid, the new tier from now; failed, the change applies at the next renewal. Until then change and cancel answer 409.';

/**
 * An upgrade `now` whose charge was signed and stored, then could not be sent (the node down, or
 * its answer lost after the chain ran it). It was answered 503 BALANCE_UNAVAILABLE "The network is
 * unreachable; nothing was charged. Try again.", while the chain had taken the charge, or the next
 * billing pass sent the stored bytes and took it then: the owner, told nothing was charged, was
 * charged anyway. Now 409 CHARGE_IN_PROGRESS says what is true, and the pass settles it once.
 */
describe('an upgrade `now` whose signed charge could not be sent', () => {
  let h: BillingHarness;
  const apps: App[] = [];
  beforeAll(async () => {
    h = await startBillingHarness({ seed: 'billing-upgrade-send-failed', start: at('2027-03-10T12:00:00.000Z') });
    const { allowanceId } = await h.setUp({ funder: 'carol', tier: 'team', prefundPeriods: 1 });
    expect((await h.call('POST', '/v1/billing/onchain/activate', { network: 'testnet', tier: 'team', allowanceId })).body.data).toMatchObject({ state: 'active' });
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await h.close();
  });

  /** A second gateway (same database, same charging lock) whose chain's `submit` is `submit`. */
  async function gatewayWith(submit: (inner: Chain) => Chain['submit']) {
    const inner = simnetChain(h);
    const service = new BillingService({ db: h.db.database.db, clock: h.clock, chain: chainWith(inner, { submit: submit(inner) }), lock: h.billing.lock });
    const app = await buildGatewayApp({ config: h.config, database: h.db.database, clock: h.clock, logger: createLogger('silent'), upstreams: h.upstreams, billing: { ...h.billing, service } });
    await app.ready();
    apps.push(app);
    return (path: string, body?: unknown) => call({ app } as never, 'POST', path, { key: h.adminKey, body, network: 'testnet' });
  }

  const inFlight = () => h.db.database.db.selectFrom('billing_charges').select(['kind', 'status']).where('status', 'in', ['pending', 'signed']).execute();
  const upgrades = () => h.db.database.db.selectFrom('billing_charges').select(['amount_micro_usdc', 'status', 'digest']).where('kind', '=', 'upgrade').orderBy('created_at').execute();

  async function expectInFlight(answer: Awaited<ReturnType<Awaited<ReturnType<typeof gatewayWith>>>>) {
    expect({ status: answer.status, body: answer.body, retryAfter: answer.headers['retry-after'] }).toEqual({
      status: 409,
      body: { error: 'Charge in progress, retry in a minute', code: 'CHARGE_IN_PROGRESS', requestId: expect.any(String), message: IN_FLIGHT, retryAfter: 60 },
      retryAfter: '60',
    });
    expect(await inFlight()).toEqual([{ kind: 'upgrade', status: 'signed' }]);
    // A retry, or a cancel, cannot charge it again or slip under it.
    expect((await h.call('POST', '/v1/billing/onchain/change', { tier: 'growth', when: 'now' })).body.code).toBe('CHARGE_IN_PROGRESS');
    expect((await h.call('POST', '/v1/billing/onchain/cancel')).body.code).toBe('CHARGE_IN_PROGRESS');
  }

  it('the chain ran it, its answer was lost: 409 CHARGE_IN_PROGRESS (not 503 "nothing was charged"); the next pass writes the paid upgrade', async () => {
    h.moveTo(at('2027-03-20T12:00:00.000Z'));
    const growth = await h.setUp({ funder: 'carol', tier: 'growth', prefundPeriods: 1 });
    const treasury = await h.usdcBalance(BILLING_TREASURY);
    const post = await gatewayWith((inner) => async (network, charge) => {
      await inner.submit(network, charge);
      throw new ChainUnavailable(`charge ${charge.digest} not executed: connection reset`);
    });

    await expectInFlight(await post('/v1/billing/onchain/change', { tier: 'growth', when: 'now', allowanceId: growth.allowanceId }));
    const [upgrade] = await upgrades();
    const charged = BigInt(upgrade!.amount_micro_usdc);
    // Taken already, as the 503 said it was not.
    expect(await h.usdcBalance(BILLING_TREASURY)).toBe(treasury + charged);

    h.moveTo(at('2027-03-20T12:05:00.000Z'));
    expect(await h.billing.pass.run()).toMatchObject({ charged: 1, declined: 0, unavailable: 0, failed: 0 });
    expect(await h.usdcBalance(BILLING_TREASURY)).toBe(treasury + charged);
    expect(await upgrades()).toEqual([{ amount_micro_usdc: charged.toString(), status: 'succeeded', digest: upgrade!.digest }]);
    expect((await h.call('GET', '/v1/billing/onchain')).body.data).toMatchObject({
      state: 'active', plan: { tier: 'growth', price: '199000000' }, allowance: { id: growth.allowanceId }, pendingChange: null,
      currentPeriod: { start: '2027-03-20T12:00:00.000Z', end: '2027-04-20T12:00:00.000Z' },
    });
    expect((await h.call('POST', '/v1/billing/onchain/change', { tier: 'growth', when: 'now' })).body.code).toBe('PLAN_UNCHANGED');
  });

  it('never sent (the node refused it): 409 CHARGE_IN_PROGRESS; the next pass sends the same bytes, and it is taken once', async () => {
    h.moveTo(at('2027-03-25T12:00:00.000Z'));
    const professional = await h.setUp({ funder: 'carol', tier: 'professional', prefundPeriods: 1 });
    const treasury = await h.usdcBalance(BILLING_TREASURY);
    const post = await gatewayWith(() => async (_network, charge) => {
      throw new ChainUnavailable(`charge ${charge.digest} not executed: node unreachable`);
    });

    await expectInFlight(await post('/v1/billing/onchain/change', { tier: 'professional', when: 'now', allowanceId: professional.allowanceId }));
    const upgrade = (await upgrades()).at(-1)!;
    expect(await h.usdcBalance(BILLING_TREASURY)).toBe(treasury);

    h.moveTo(at('2027-03-25T12:05:00.000Z'));
    expect(await h.billing.pass.run()).toMatchObject({ charged: 1, declined: 0, unavailable: 0, failed: 0 });
    const charged = BigInt(upgrade.amount_micro_usdc);
    expect(await h.usdcBalance(BILLING_TREASURY)).toBe(treasury + charged);
    expect((await upgrades()).at(-1)).toEqual({ amount_micro_usdc: charged.toString(), status: 'succeeded', digest: upgrade.digest });
    expect((await h.call('GET', '/v1/billing/onchain')).body.data).toMatchObject({
      state: 'active', plan: { tier: 'professional', price: '499000000' }, allowance: { id: professional.allowanceId }, pendingChange: null,
      currentPeriod: { start: '2027-03-25T12:00:00.000Z', end: '2027-04-25T12:00:00.000Z' },
    });
    expect(await h.billing.pass.run()).toMatchObject({ charged: 0 });
    expect(await h.usdcBalance(BILLING_TREASURY)).toBe(treasury + charged);
  });
});
