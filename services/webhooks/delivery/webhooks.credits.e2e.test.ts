import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../../test/support/test-app.js';
import { call } from '../../../test/support/management-calls.js';
import { startWebhookHarness, type WebhookHarness } from '../../../test/support/webhook-harness.js';
import { ManualClock } from '../../core/index.js';
import { creditPeriod } from '../../metering/index.js';
import type { Tier } from '../../plans/index.js';
import { CREDITS_RECHECK_MS } from './dispatcher.js';
import { RETRY_SCHEDULE_MS } from './retry-schedule.js';

interface LoggedDelivery { id: string; status: string; attempts: number; responseStatus: number | null }
interface UsageRoute { network: string; route: string; requests: number; credits: number }

/**
 * What webhook deliveries cost (docs/costs.md, docs/webhooks.md "Credits"): as a Warp event, 1
 * credit per delivery the receiver acknowledged (2xx), nothing for a failed attempt; when the
 * organization's credits are spent nothing is sent and nothing dropped: the deliveries wait
 * pending, no attempt spent, and go out when credits return. Through the real path: the route
 * creates the webhook, the ingest's consumer queues, the dispatcher POSTs to a receiver on
 * loopback, the gateway's pipeline (shared with the dispatcher, as in `suigw dev`) charges.
 * Before, deliveries were free.
 */
function creditsSuite(name: string, tier: Tier, body: (s: Suite) => void): void {
  describe(name, () => {
    const s = {} as Suite;
    s.clock = new ManualClock(Date.UTC(2026, 10, 20, 12));
    beforeAll(async () => {
      s.h = await startWebhookHarness({ clock: s.clock, tier });
      s.t = s.h.t;
    });
    afterEach(() => {
      s.h.receiver.received.length = 0;
    });
    afterAll(async () => s.h.close());
    s.match = (webhookId, count) => s.h.match(webhookId, count);
    s.credits = async () => {
      const response = await call(s.t, 'GET', '/v1/account', { key: s.t.adminKey });
      expect(response.status).toBe(200);
      return Number(response.headers['x-svc-credit-remaining']);
    };
    s.usage = async () => {
      await s.t.pipeline!.metering!.usage.flush();
      const response = await call(s.t, 'GET', '/v1/usage', { key: s.t.adminKey });
      expect(response.status).toBe(200);
      return (response.body.data as { routes: UsageRoute[] }).routes;
    };
    body(s);
  });
}

interface Suite {
  clock: ManualClock;
  h: WebhookHarness;
  t: TestApp;
  /** Hands `count` matches of a new checkpoint to the consumer, as the ingest does. */
  match(webhookId: string, count: number): Promise<void>;
  /** The organization's credits left (X-Svc-Credit-Remaining of a free call, from the shared ledger). */
  credits(): Promise<number>;
  /** GET /v1/usage's routes once the usage recorder has flushed. */
  usage(): Promise<UsageRoute[]>;
}

const countBy = (deliveries: LoggedDelivery[]) => deliveries.reduce<Record<string, number>>((counts, d) => ({ ...counts, [`${d.status}/${d.attempts}`]: (counts[`${d.status}/${d.attempts}`] ?? 0) + 1 }), {});

creditsSuite('webhook deliveries are charged per acknowledged delivery', 'team', (s) => {
  it('1 credit per 2xx, nothing for a failed attempt or a retry that fails; usage route WEBHOOK delivery', async () => {
    const hook = (await s.h.createHook('/hook')).id;
    const before = await s.credits();
    await s.match(hook, 3);
    s.h.receiver.answer({ status: 200 }, { status: 500 }, { status: 200 });
    expect(await s.h.runtime.dispatcher.runDue()).toBe(3);
    expect(s.h.receiver.received).toHaveLength(3);
    expect(await s.credits()).toBe(before - 2);
    expect(countBy(await s.h.deliveryLog<LoggedDelivery>(hook))).toEqual({ 'succeeded/1': 2, 'pending/1': 1 });

    s.clock.advance(RETRY_SCHEDULE_MS[1]!);
    s.h.receiver.answer({ status: 503 });
    expect(await s.h.runtime.dispatcher.runDue()).toBe(1);
    expect(await s.credits()).toBe(before - 2);

    s.clock.advance(RETRY_SCHEDULE_MS[2]!);
    expect(await s.h.runtime.dispatcher.runDue()).toBe(1);
    expect(await s.credits()).toBe(before - 3);
    expect(countBy(await s.h.deliveryLog<LoggedDelivery>(hook))).toEqual({ 'succeeded/1': 2, 'succeeded/3': 1 });
    expect(await s.usage()).toEqual([{ network: 'mainnet', route: 'WEBHOOK delivery', requests: 3, credits: 3 }]);
  });
});

creditsSuite('webhook deliveries when the organization\'s credits are spent', 'wallet', (s) => {
  it('nothing is sent and nothing dropped: the rest wait pending, unattempted, and go out when credits return', async () => {
    // A wallet organization has no monthly credits: 30 micro-USD prepaid = 3 credits, set before the ledger reads it.
    await s.t.db.database.db.updateTable('organizations').set({ prepaid_micro_usd: 30n }).where('id', '=', s.t.organizationId).execute();
    const hook = (await s.h.createHook('/hook')).id;
    await s.match(hook, 5);
    expect(await s.h.runtime.dispatcher.runDue()).toBe(3);
    expect(s.h.receiver.received).toHaveLength(3);
    expect(await s.credits()).toBe(0);
    expect(countBy(await s.h.deliveryLog<LoggedDelivery>(hook))).toEqual({ 'succeeded/1': 3, 'pending/0': 2 });

    // Still spent when the organization is tried again: nothing sent, nothing given up.
    s.clock.advance(CREDITS_RECHECK_MS);
    expect(await s.h.runtime.dispatcher.runDue()).toBe(0);
    expect(s.h.receiver.received).toHaveLength(3);
    expect(countBy(await s.h.deliveryLog<LoggedDelivery>(hook))).toEqual({ 'succeeded/1': 3, 'pending/0': 2 });
    // Past the whole retry schedule (about 27.6 hours): waiting for credits spends no attempt.
    s.clock.advance(RETRY_SCHEDULE_MS.reduce((sum, ms) => sum + ms, 0));
    expect(await s.h.runtime.dispatcher.runDue()).toBe(0);
    expect(countBy(await s.h.deliveryLog<LoggedDelivery>(hook))).toEqual({ 'succeeded/1': 3, 'pending/0': 2 });
    expect(await s.usage()).toEqual([{ network: 'mainnet', route: 'WEBHOOK delivery', requests: 3, credits: 3 }]);

    // Credits return: 2 prepaid credits, read when the next credit period begins.
    await s.t.db.database.db.updateTable('organizations').set({ prepaid_micro_usd: 20n }).where('id', '=', s.t.organizationId).execute();
    s.clock.set(creditPeriod(s.clock.now()).replenishAtMs);
    expect(await s.h.runtime.dispatcher.runDue()).toBe(2);
    expect(new Set(s.h.receiver.received.map((d) => d.headers['webhook-id'])).size).toBe(5);
    expect(countBy(await s.h.deliveryLog<LoggedDelivery>(hook))).toEqual({ 'succeeded/1': 5 });
    expect(await s.credits()).toBe(0);
  });
});

creditsSuite('webhook deliveries held for credits, then a prepaid grant in the same period', 'wallet', (s) => {
  it('go out once the ledger re-reads the balance, one flush interval later, though the process had nothing to write', async () => {
    await s.t.db.database.db.updateTable('organizations').set({ prepaid_micro_usd: 30n }).where('id', '=', s.t.organizationId).execute();
    const hook = (await s.h.createHook('/hook')).id;
    await s.match(hook, 5);
    expect(await s.h.runtime.dispatcher.runDue()).toBe(3);
    // The three deliveries are written; from here on the process has nothing to write.
    await s.t.pipeline!.metering!.usage.flush();
    expect(countBy(await s.h.deliveryLog<LoggedDelivery>(hook))).toEqual({ 'succeeded/1': 3, 'pending/0': 2 });

    // A grant of 2 credits (`suigw admin grant` writes the balance), then one tick of the usage recorder.
    await s.t.db.database.db.updateTable('organizations').set({ prepaid_micro_usd: 20n }).where('id', '=', s.t.organizationId).execute();
    await s.t.pipeline!.metering!.usage.tick();
    s.clock.advance(CREDITS_RECHECK_MS);
    expect(await s.h.runtime.dispatcher.runDue()).toBe(2);
    expect(countBy(await s.h.deliveryLog<LoggedDelivery>(hook))).toEqual({ 'succeeded/1': 5 });
    expect(await s.credits()).toBe(0);
  });
});
