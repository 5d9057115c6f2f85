import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fundAddressBalance, revokeAllowance, startBillingHarness, type BillingHarness } from '../../test/support/billing-harness.js';
import { BILLING_TREASURY, COIN_TYPES } from '../simnet/index.js';
import { proratedUpgradeCharge } from './domain/proration.js';
import { WINDOW_OPENING_MARGIN_MS } from './domain/allowance-window.js';

const USDC = 1_000_000n;
const at = (iso: string) => Date.parse(iso);

async function organization(h: BillingHarness) {
  return h.db.database.db.selectFrom('organizations').select(['subscription_plan', 'subscription_status']).where('id', '=', h.organizationId).executeTakeFirstOrThrow();
}

async function chargesOf(h: BillingHarness) {
  return h.db.database.db.selectFrom('billing_charges').select(['kind', 'period_key', 'amount_micro_usdc', 'status']).orderBy('created_at').orderBy('id').execute();
}


describe('on-chain plan lifecycle on simnet: renewals, upgrade now, downgrade at renewal, cancel', () => {
  let h: BillingHarness;
  beforeAll(async () => {
    h = await startBillingHarness({ seed: 'billing-lifecycle-a', start: at('2027-01-31T09:00:00.000Z') });
  });
  afterAll(async () => h.close());

  it('activate on Jan 31 takes the first charge at once; renewals fall on Feb 28, Mar 31, Apr 30', async () => {
    h.moveTo(at('2027-01-31T10:00:00.000Z'));
    const treasuryBefore = await h.usdcBalance(BILLING_TREASURY);
    const { allowanceId } = await h.setUp({ funder: 'carol', tier: 'team', prefundPeriods: 6 });
    const activated = await h.call('POST', '/v1/billing/onchain/activate', { network: 'testnet', tier: 'team', allowanceId });
    expect(activated.status).toBe(200);
    expect(activated.body.data).toMatchObject({
      state: 'active', plan: { tier: 'team', interval: 'month', price: '49000000' }, allowance: { id: allowanceId },
      currentPeriod: { start: '2027-01-31T10:00:00.000Z', end: '2027-02-28T10:00:00.000Z' }, nextCharge: { at: '2027-02-28T10:00:00.000Z', amount: '49000000' },
    });
    expect(await organization(h)).toEqual({ subscription_plan: 'team', subscription_status: 'active' });
    // The key's principal follows at once (NOTIFY), so the plan's limits apply to the next request.
    expect((await h.call('GET', '/v1/account')).body.data).toMatchObject({ tier: 'team', subscription: { plan: 'team', status: 'active', periodEnd: '2027-02-28T10:00:00.000Z' } });
    for (const renewal of ['2027-02-28T10:00:00.000Z', '2027-03-31T10:00:00.000Z', '2027-04-30T10:00:00.000Z']) {
      h.moveTo(at(renewal) - 60_000);
      expect((await h.billing.pass.run()).charged).toBe(0);
      h.moveTo(at(renewal));
      expect(await h.billing.pass.run()).toMatchObject({ charged: 1, declined: 0 });
    }
    expect(await h.usdcBalance(BILLING_TREASURY)).toBe(treasuryBefore + 4n * 49n * USDC);
    expect((await chargesOf(h)).map((charge) => [charge.kind, charge.period_key.toISOString(), charge.status])).toEqual([
      ['first', expect.any(String), 'succeeded'],
      ['renewal', '2027-02-28T10:00:00.000Z', 'succeeded'],
      ['renewal', '2027-03-31T10:00:00.000Z', 'succeeded'],
      ['renewal', '2027-04-30T10:00:00.000Z', 'succeeded'],
    ]);
    // A pass run again at the same time charges nothing more.
    expect((await h.billing.pass.run()).charged).toBe(0);
  });

  it('upgrade now: a new allowance, the new price minus the unused part, a new period from today; the old allowance is revoked after 200', async () => {
    h.moveTo(at('2027-05-10T10:00:00.000Z'));
    const plan = (await h.call('GET', '/v1/billing/onchain')).body.data as { allowance: { id: string } };
    const { allowanceId } = await h.setUp({ funder: 'carol', tier: 'growth', prefundPeriods: 2 });
    const changed = await h.call('POST', '/v1/billing/onchain/change', { tier: 'growth', when: 'now', allowanceId });
    expect(changed.status).toBe(200);
    const expected = proratedUpgradeCharge({ newPrice: 199n * USDC, oldPrice: 49n * USDC, periodStart: at('2027-04-30T10:00:00.000Z'), periodEnd: at('2027-05-31T10:00:00.000Z'), now: at('2027-05-10T10:00:00.000Z') }).charge;
    expect(changed.body.data).toMatchObject({
      state: 'active', plan: { tier: 'growth', price: '199000000' }, allowance: { id: allowanceId },
      currentPeriod: { start: '2027-05-10T10:00:00.000Z', end: '2027-06-10T10:00:00.000Z' },
      lastCharges: [expect.objectContaining({ kind: 'upgrade', amount: expected.toString(), status: 'succeeded' }), expect.anything(), expect.anything(), expect.anything(), expect.anything()],
    });
    expect(await organization(h)).toEqual({ subscription_plan: 'growth', subscription_status: 'active' });
    const oldCap = await h.db.database.db.selectFrom('onchain_plans').select('allowance_cap_id').executeTakeFirst();
    expect(oldCap).toBeDefined();
    // The old allowance is the funder's to revoke now; the plan does not use it any more.
    const caps = await h.sui.core.listOwnedObjects({ owner: h.account('carol').address, type: `0x2::allowance::AllowanceCap<0x2::balance::Balance<${COIN_TYPES.USDC}>>`, include: { content: true } });
    const { bcs } = await import('@mysten/sui/bcs');
    const oldCapId = caps.objects.find((cap) => bcs.struct('C', { id: bcs.Address, allowance: bcs.Address }).parse(cap.content!).allowance === plan.allowance.id)!.objectId;
    await revokeAllowance(h, 'carol', plan.allowance.id, oldCapId);
    expect((await h.billing.pass.run())).toMatchObject({ charged: 0, cancelled: 0 });
  });

  it('downgrade now is DOWNGRADE_NEEDS_RENEWAL; at the next renewal it charges the lower price', async () => {
    const now = await h.call('POST', '/v1/billing/onchain/change', { tier: 'team', when: 'now' });
    expect(now.status).toBe(400);
    expect(now.body).toMatchObject({ error: 'Downgrade applies at renewal', code: 'DOWNGRADE_NEEDS_RENEWAL' });
    const later = await h.call('POST', '/v1/billing/onchain/change', { tier: 'team', when: 'next_renewal' });
    expect(later.status).toBe(200);
    expect(later.body.data).toMatchObject({ plan: { tier: 'growth' }, pendingChange: { tier: 'team', at: 'next_renewal' }, nextCharge: { at: '2027-06-10T10:00:00.000Z', amount: '49000000' } });
    h.moveTo(at('2027-06-10T10:00:00.000Z'));
    expect((await h.billing.pass.run()).charged).toBe(1);
    expect((await h.call('GET', '/v1/billing/onchain')).body.data).toMatchObject({ plan: { tier: 'team', price: '49000000' }, pendingChange: null, currentPeriod: { end: '2027-07-10T10:00:00.000Z' } });
    expect(await organization(h)).toEqual({ subscription_plan: 'team', subscription_status: 'active' });
  });

  it('cancel → cancel_pending with access to period end → ended and Free; the same plan set up again starts anew', async () => {
    const cancelled = await h.call('POST', '/v1/billing/onchain/cancel');
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.data).toMatchObject({ state: 'cancel_pending', nextCharge: null });
    expect(await organization(h)).toEqual({ subscription_plan: 'team', subscription_status: 'cancel_pending' });
    const again = await h.call('POST', '/v1/billing/onchain/cancel');
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: 'Plan cancelled', code: 'PLAN_CANCELLED' });
    const change = await h.call('POST', '/v1/billing/onchain/change', { tier: 'growth', when: 'next_renewal' });
    expect(change.body).toMatchObject({ code: 'PLAN_CANCELLED' });
    h.moveTo(at('2027-07-10T09:59:00.000Z'));
    expect((await h.billing.pass.run()).ended).toBe(0);
    h.moveTo(at('2027-07-10T10:00:00.000Z'));
    expect((await h.billing.pass.run()).ended).toBe(1);
    expect(await organization(h)).toEqual({ subscription_plan: null, subscription_status: 'ended' });
    expect((await h.call('GET', '/v1/account')).body.data).toMatchObject({ tier: 'free', subscription: { plan: null, status: 'canceled' } });
    // The ended plan stays visible to its owner, with when and why it ended (it was a 404).
    const gone = await h.call('GET', '/v1/billing/onchain');
    expect(gone.status).toBe(200);
    expect(gone.body.data).toMatchObject({
      state: 'ended', plan: { tier: 'team' }, nextCharge: null, pendingChange: null,
      ended: { at: '2027-07-10T10:00:00.000Z', trigger: 'period_ended', reason: 'period ended 2027-07-10T10:00:00.000Z' },
      lastCharges: [expect.objectContaining({ status: 'succeeded' }), expect.anything(), expect.anything(), expect.anything(), expect.anything(), expect.anything()],
    });
    const transitions = await h.db.database.db.selectFrom('plan_transitions').select(['from_state', 'to_state', 'trigger', 'actor']).orderBy('seq').execute();
    expect(transitions.map((row) => `${row.from_state ?? '(none)'} -${row.trigger}/${row.actor}-> ${row.to_state}`)).toEqual([
      '(none) -activate/owner-> awaiting_first_charge',
      'awaiting_first_charge -charge_succeeded/billing-> active',
      'active -charge_succeeded/billing-> active',
      'active -charge_succeeded/billing-> active',
      'active -charge_succeeded/billing-> active',
      'active -tier_changed/owner-> active',
      'active -tier_changed/owner-> active',
      'active -charge_succeeded/billing-> active',
      'active -cancel/owner-> cancel_pending',
      'cancel_pending -period_ended/billing-> ended',
    ]);
  });
});

describe('on-chain plan failures on simnet: past_due, recovery, 7 failures → ended, revoked allowance, resume', () => {
  let h: BillingHarness;
  beforeAll(async () => {
    h = await startBillingHarness({ seed: 'billing-lifecycle-b', start: at('2027-01-31T09:00:00.000Z') });
  });
  afterAll(async () => h.close());

  it('a short balance is emailed 7 days ahead, the charge fails → past_due (access continues), a deposit → active again', async () => {
    h.moveTo(at('2027-01-31T10:00:00.000Z'));
    // grace holds USDC coins and no USDC address balance: the prefund is all the allowance can take.
    expect(await h.usdcBalance(h.account('grace').address)).toBe(0n);
    const { allowanceId } = await h.setUp({ funder: 'grace', tier: 'growth', prefundPeriods: 1 });
    const activated = await h.call('POST', '/v1/billing/onchain/activate', { network: 'testnet', tier: 'growth', allowanceId, notifyEmail: 'owner@acme.test' });
    expect(activated.body.data).toMatchObject({ state: 'active', billingBalance: '0' });
    h.moveTo(at('2027-02-21T09:59:00.000Z'));
    expect((await h.billing.pass.run()).reminders).toBe(0);
    h.moveTo(at('2027-02-21T10:00:00.000Z'));
    expect((await h.billing.pass.run()).reminders).toBe(1);
    expect((await h.billing.pass.run()).reminders).toBe(0);
    h.moveTo(at('2027-02-28T10:00:00.000Z'));
    expect(await h.billing.pass.run()).toMatchObject({ charged: 0, declined: 1 });
    expect((await h.call('GET', '/v1/billing/onchain')).body.data).toMatchObject({ state: 'past_due', failedAttempts: 1, nextCharge: { at: '2027-03-01T10:00:00.000Z' } });
    expect(await organization(h)).toEqual({ subscription_plan: 'growth', subscription_status: 'past_due' });
    await fundAddressBalance(h, 'grace', 199n * USDC);
    h.moveTo(at('2027-03-01T10:00:00.000Z'));
    expect((await h.billing.pass.run()).charged).toBe(1);
    expect((await h.call('GET', '/v1/billing/onchain')).body.data).toMatchObject({ state: 'active', failedAttempts: 0, currentPeriod: { start: '2027-02-28T10:00:00.000Z', end: '2027-03-31T10:00:00.000Z' } });
    const emails = await h.db.database.db.selectFrom('billing_emails').select(['kind', 'recipient', 'idempotency_key']).orderBy('created_at').execute();
    expect(emails.map((email) => email.kind)).toEqual(['renewal_reminder', 'charge_failed']);
  });

  it('7 daily failures: emails on attempts 1, 3, 5, 7, then ended and Free; the streams and webhooks above Free’s count pause', async () => {
    // On Team (5 of each) the organization holds 2 streams and 2 webhooks; Free allows 1 of each.
    const created: Record<'streams' | 'webhooks', string[]> = { streams: [], webhooks: [] };
    for (const name of ['older', 'newer']) {
      const stream = await h.call('POST', '/v1/streams', { name, type: 'coin', filters: { coinTypes: ['0x2::sui::SUI'] } });
      const webhook = await h.call('POST', '/v1/webhooks', { url: `https://hooks.example.com/${name}`, type: 'coin', filters: { coinTypes: ['0x2::sui::SUI'] } });
      expect([stream.status, webhook.status]).toEqual([201, 201]);
      created.streams.push((stream.body.data as { id: string }).id);
      created.webhooks.push((webhook.body.data as { id: string }).id);
    }
    const pausedWebhooks = async () => ((await h.call('GET', '/v1/webhooks')).body.data as { id: string; paused: boolean }[]).map((w) => [w.id, w.paused]);
    expect(await pausedWebhooks()).toEqual([[created.webhooks[0], false], [created.webhooks[1], false]]);

    const drained = await h.usdcBalance(h.account('grace').address);
    expect(drained).toBeLessThan(199n * USDC);
    const start = at('2027-03-31T10:00:00.000Z');
    const outcomes: string[] = [];
    // The February renewal was taken on March 1 (after a failure), so March's allowance window is
    // used up: the renewal due March 31 waits for April's window, then fails daily for want of funds.
    for (let day = 0; day < 8; day++) {
      h.moveTo(start + day * 86_400_000);
      const report = await h.billing.pass.run();
      outcomes.push(report.ended ? 'ended' : report.declined ? 'declined' : 'idle');
    }
    expect(outcomes).toEqual(['idle', 'declined', 'declined', 'declined', 'declined', 'declined', 'declined', 'ended']);
    expect(await organization(h)).toEqual({ subscription_plan: null, subscription_status: 'ended' });
    const failed = await h.db.database.db.selectFrom('billing_emails').select('idempotency_key').where('kind', '=', 'charge_failed').orderBy('created_at').execute();
    expect(failed.map((email) => email.idempotency_key.split(':').slice(-2)[0])).toEqual(['1', '1', '3', '5', '7']);

    expect(await pausedWebhooks()).toEqual([[created.webhooks[0], false], [created.webhooks[1], true]]);
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    const warp = `ws://127.0.0.1:${(h.app.server.address() as AddressInfo).port}/testnet/v1/warp`;
    const firstMessageAndClose = (streamId: string) => new Promise<{ first: unknown; code: number; reason: string }>((resolve, reject) => {
      const socket = new WebSocket(`${warp}/${streamId}/ws`, { headers: { 'x-api-key': h.adminKey } });
      let first: unknown;
      socket.on('message', (raw) => {
        first ??= JSON.parse(String(raw));
        socket.close();
      });
      socket.on('close', (code, reason) => resolve({ first, code, reason: String(reason) }));
      socket.on('error', reject);
    });
    expect(await firstMessageAndClose(created.streams[1]!)).toMatchObject({ first: { event: 'error', data: { code: 'STREAM_PAUSED' } }, code: 4003, reason: 'STREAM_PAUSED' });
    expect(await firstMessageAndClose(created.streams[0]!)).toMatchObject({ first: { event: 'connected' } });
  });

  it('a revoked allowance moves the plan to cancel_pending; activating the same plan again resumes it', async () => {
    h.moveTo(at('2027-05-01T10:00:00.000Z'));
    const { allowanceId, capId } = await h.setUp({ funder: 'grace', tier: 'team', prefundPeriods: 2 });
    expect((await h.call('POST', '/v1/billing/onchain/activate', { network: 'testnet', tier: 'team', allowanceId })).body.data).toMatchObject({ state: 'active' });
    await revokeAllowance(h, 'grace', allowanceId, capId);
    h.moveTo(at('2027-06-01T10:00:00.000Z'));
    expect((await h.billing.pass.run()).cancelled).toBe(1);
    expect((await h.call('GET', '/v1/billing/onchain')).body.data).toMatchObject({ state: 'cancel_pending' });
    const other = await h.call('POST', '/v1/billing/onchain/activate', { network: 'testnet', tier: 'growth', allowanceId });
    expect(other.status).toBe(400);
    expect(other.body).toMatchObject({ code: 'PLAN_UNCHANGED' });
    const fresh = await h.setUp({ funder: 'grace', tier: 'team', prefundPeriods: 0 });
    const resumed = await h.call('POST', '/v1/billing/onchain/activate', { network: 'testnet', tier: 'team', allowanceId: fresh.allowanceId });
    expect(resumed.status).toBe(200);
    expect(resumed.body.data).toMatchObject({ state: 'active', allowance: { id: fresh.allowanceId } });
    expect(await organization(h)).toEqual({ subscription_plan: 'team', subscription_status: 'active' });
  });
});

describe('an annual plan on simnet: ten months’ price, renewed on the anniversary (Feb 29 → Feb 28 → Feb 28)', () => {
  let h: BillingHarness;
  beforeAll(async () => {
    h = await startBillingHarness({ seed: 'billing-lifecycle-annual', start: at('2028-02-29T09:00:00.000Z') });
  });
  afterAll(async () => h.close());

  it('activate on a leap day charges the year at once; the pass renews it on the anniversary, nothing in between', async () => {
    h.moveTo(at('2028-02-29T10:00:00.000Z'));
    const treasuryBefore = await h.usdcBalance(BILLING_TREASURY);
    // heidi holds her USDC in her address balance (2,500 at genesis), no coins: nothing to prefund from.
    const { allowanceId } = await h.setUp({ funder: 'heidi', tier: 'team', interval: 'year', prefundPeriods: 0 });
    const activated = await h.call('POST', '/v1/billing/onchain/activate', { network: 'testnet', tier: 'team', interval: 'year', allowanceId });
    expect(activated.status).toBe(200);
    expect(activated.body.data).toMatchObject({
      state: 'active', plan: { tier: 'team', interval: 'year', price: '490000000' },
      currentPeriod: { start: '2028-02-29T10:00:00.000Z', end: '2029-02-28T10:00:00.000Z' }, nextCharge: { at: '2029-02-28T10:00:00.000Z', amount: '490000000' },
    });
    // Monthly passes through the year charge nothing: the next charge is a year away.
    for (let month = 1; month < 12; month++) {
      h.moveTo(at('2028-02-29T10:00:00.000Z') + month * 30 * 86_400_000);
      expect((await h.billing.pass.run()).charged).toBe(0);
    }
    for (const [renewal, end] of [['2029-02-28T10:00:00.000Z', '2030-02-28T10:00:00.000Z'], ['2030-02-28T10:00:00.000Z', '2031-02-28T10:00:00.000Z']] as const) {
      // Due now, but the allowance's window opened on the chain's time of the first spend, a
      // few seconds after our period start: the pass waits for it instead of failing the charge.
      h.moveTo(at(renewal));
      expect(await h.billing.pass.run()).toMatchObject({ charged: 0, declined: 0 });
      h.moveTo(at(renewal) + WINDOW_OPENING_MARGIN_MS + 60_000);
      expect(await h.billing.pass.run()).toMatchObject({ charged: 1, declined: 0 });
      // (Read from the database: the harness's API key, valid a year, has expired by now.)
      const plan = await h.db.database.db.selectFrom('onchain_plans').select(['state', 'period_start', 'period_end']).executeTakeFirstOrThrow();
      expect([plan.state, plan.period_start?.toISOString(), plan.period_end?.toISOString()]).toEqual(['active', renewal, end]);
    }
    expect(await h.usdcBalance(BILLING_TREASURY)).toBe(treasuryBefore + 3n * 490n * USDC);
    expect((await chargesOf(h)).map((charge) => [charge.kind, charge.amount_micro_usdc, charge.status])).toEqual([
      ['first', '490000000', 'succeeded'], ['renewal', '490000000', 'succeeded'], ['renewal', '490000000', 'succeeded'],
    ]);
  });
});
