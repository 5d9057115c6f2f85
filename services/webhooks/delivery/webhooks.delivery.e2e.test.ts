import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../../test/support/test-app.js';
import { call } from '../../../test/support/management-calls.js';
import { startWebhookHarness, type WebhookHarness } from '../../../test/support/webhook-harness.js';
import type { ReceivedDelivery, WebhookReceiver } from '../../../test/support/webhook-receiver.js';
import { ManualClock } from '../../core/index.js';
import type { AppendedEvent } from '../../streams/index.js';
import type { WebhookRuntime } from '../webhook-runtime.js';
import { claimDueDeliveries } from './deliveries.js';
import { RETRY_SCHEDULE_MS } from './retry-schedule.js';

const SUI = '0x0000000000000000000000000000000000000000000000000000000000000002::sui::SUI';

interface LoggedDelivery { id: string; status: string; attempts: number; responseStatus: number | null; error: string | null; nextAttemptAt: string | null; lastAttemptAt: string | null }

/**
 * Deliveries end to end: the real route creates the webhook, the ingest's consumer queues
 * matches, the dispatcher attempts them against a real HTTP receiver on loopback, and an
 * independent Standard Webhooks implementation (`standardwebhooks`) verifies the signatures.
 * Retries run on the manual clock: `runDue()` attempts what is due at the clock's now.
 */
describe('webhook delivery', () => {
  // standardwebhooks checks the signed timestamp against the real time (5 minutes' tolerance).
  const clock = new ManualClock(Date.now());
  let h: WebhookHarness;
  let t: TestApp;
  let receiver: WebhookReceiver;
  let runtime: WebhookRuntime;
  let checkpoint = 100n;

  beforeAll(async () => {
    h = await startWebhookHarness({ clock, timeoutMs: 2_000 });
    ({ t, receiver, runtime } = h);
  });
  afterEach(() => {
    receiver.received.length = 0;
  });
  afterAll(async () => h.close());

  const newRuntime = () => h.newRuntime();
  const createHook = (path: string) => h.createHook(path);
  const deliveryLog = (webhookId: string, query = '') => h.deliveryLog<LoggedDelivery>(webhookId, query);

  function coinEvent(n: number): AppendedEvent {
    return { kind: 'coin', data: { checkpoint: String(checkpoint), digest: `D${n}`, timestampMs: clock.now(), address: `0x${'5'.repeat(64)}`, coinType: SUI, amount: String(n) } };
  }

  /** Hands `count` matches of a new checkpoint to the consumer, as the ingest does. */
  async function match(webhookId: string, count = 1, on: WebhookRuntime = runtime): Promise<AppendedEvent[]> {
    checkpoint += 1n;
    const events = Array.from({ length: count }, (_, i) => coinEvent(i));
    await on.consumer.accept('mainnet', checkpoint, new Map([[webhookId, events]]));
    return events;
  }

  const headersOf = (delivery: ReceivedDelivery) => ({
    'webhook-id': String(delivery.headers['webhook-id']),
    'webhook-timestamp': String(delivery.headers['webhook-timestamp']),
    'webhook-signature': String(delivery.headers['webhook-signature']),
  });

  it('POSTs {type, timestamp, data} with Standard Webhooks headers that standardwebhooks verifies; the log shows it succeeded', async () => {
    const hook = await createHook('/ok');
    const [event] = await match(hook.id);
    expect(await runtime.dispatcher.runDue()).toBe(1);
    expect(receiver.received).toHaveLength(1);
    const delivery = receiver.received[0]!;
    expect(delivery.path).toBe('/ok');
    expect(delivery.headers['content-type']).toBe('application/json');
    expect(delivery.headers['webhook-id']).toMatch(/^msg_/);
    expect(delivery.headers['webhook-timestamp']).toBe(String(Math.floor(clock.now() / 1000)));
    const verified = new StandardWebhook(hook.secret).verify(delivery.body, headersOf(delivery));
    expect(verified).toEqual({ type: 'coin', timestamp: new Date(clock.now()).toISOString(), data: event!.data });
    expect(() => new StandardWebhook('whsec_' + Buffer.alloc(24, 7).toString('base64')).verify(delivery.body, headersOf(delivery))).toThrow();
    expect(() => new StandardWebhook(hook.secret).verify(delivery.body.replace('"amount":"0"', '"amount":"1"'), headersOf(delivery))).toThrow();
    expect(await deliveryLog(hook.id)).toEqual([{
      id: delivery.headers['webhook-id'], eventType: 'coin', status: 'succeeded', attempts: 1, responseStatus: 200, error: null,
      lastAttemptAt: new Date(clock.now()).toISOString(), nextAttemptAt: null, createdAt: new Date(clock.now()).toISOString(),
    }]);
  });

  it('a checkpoint handed over twice (a restarted ingest) is queued once', async () => {
    const hook = await createHook('/twice');
    const events = [coinEvent(1), coinEvent(2)];
    checkpoint += 1n;
    await runtime.consumer.accept('mainnet', checkpoint, new Map([[hook.id, events]]));
    await runtime.consumer.accept('mainnet', checkpoint, new Map([[hook.id, events]]));
    expect(await runtime.dispatcher.runDue()).toBe(2);
    expect(await runtime.dispatcher.runDue()).toBe(0);
    expect(receiver.received.map((d) => (JSON.parse(d.body) as { data: { digest: string } }).data.digest).sort()).toEqual(['D1', 'D2']);
  });

  it('the same checkpoint and position of another chain (a wiped devnet or testnet) is queued and delivered; of the same chain, once', async () => {
    const hook = await createHook('/wiped');
    const events = [coinEvent(1)];
    await runtime.consumer.accept('mainnet', 7n, new Map([[hook.id, events]]), 'old-chain');
    expect(await runtime.dispatcher.runDue()).toBe(1);
    // A replica behind, on the same chain, hands it over again: nothing new.
    await runtime.consumer.accept('mainnet', 7n, new Map([[hook.id, events]]), 'old-chain');
    expect(await runtime.dispatcher.runDue()).toBe(0);
    // The network was wiped: the new chain's checkpoint 7 is another event (before, it looked like a duplicate and was dropped).
    await runtime.consumer.accept('mainnet', 7n, new Map([[hook.id, events]]), 'new-chain');
    expect(await runtime.dispatcher.runDue()).toBe(1);
    expect(new Set(receiver.received.map((d) => d.headers['webhook-id'])).size).toBe(2);
    expect((await deliveryLog(hook.id)).map((d) => d.status)).toEqual(['succeeded', 'succeeded']);
  });

  it('after a rotation each delivery carries two signatures, each verifying with its own secret, for 24 hours', async () => {
    const hook = await createHook('/rotated');
    const rotated = await call(t, 'POST', `/v1/webhooks/${hook.id}/rotate-secret`, { key: t.adminKey });
    const fresh = (rotated.body.data as { secret: string }).secret;
    await match(hook.id);
    await runtime.dispatcher.runDue();
    const delivery = receiver.received[0]!;
    const signatures = headersOf(delivery)['webhook-signature'].split(' ');
    expect(signatures).toHaveLength(2);
    expect(signatures.every((signature) => signature.startsWith('v1,'))).toBe(true);
    const only = (signature: string) => ({ ...headersOf(delivery), 'webhook-signature': signature });
    expect(() => new StandardWebhook(fresh).verify(delivery.body, only(signatures[0]!))).not.toThrow();
    expect(() => new StandardWebhook(hook.secret).verify(delivery.body, only(signatures[1]!))).not.toThrow();
    expect(() => new StandardWebhook(hook.secret).verify(delivery.body, only(signatures[0]!))).toThrow();
    expect(() => new StandardWebhook(fresh).verify(delivery.body, only(signatures[1]!))).toThrow();
    expect(() => new StandardWebhook(fresh).verify(delivery.body, headersOf(delivery))).not.toThrow();
    expect(() => new StandardWebhook(hook.secret).verify(delivery.body, headersOf(delivery))).not.toThrow();

    // 24 hours on, the previous secret no longer signs (the timestamp is then too far from real time to verify).
    clock.advance(24 * 3_600_000);
    receiver.received.length = 0;
    await match(hook.id);
    await runtime.dispatcher.runDue();
    expect(headersOf(receiver.received[0]!)['webhook-signature'].split(' ')).toHaveLength(1);
    clock.set(Date.now());
  });

  it('retries on the schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h) with the same id and body, then fails for good', async () => {
    const hook = await createHook('/down');
    receiver.answer(...Array.from({ length: 8 }, () => ({ status: 500 })));
    await match(hook.id);
    const start = clock.now();
    expect(await runtime.dispatcher.runDue()).toBe(1);
    let elapsed = 0;
    for (const [index, wait] of RETRY_SCHEDULE_MS.slice(1).entries()) {
      const [logged] = await deliveryLog(hook.id);
      expect(logged).toMatchObject({ status: 'pending', attempts: index + 1, responseStatus: 500, error: 'HTTP 500', nextAttemptAt: new Date(start + elapsed + wait).toISOString() });
      clock.advance(wait - 1);
      expect(await runtime.dispatcher.runDue()).toBe(0);
      clock.advance(1);
      expect(await runtime.dispatcher.runDue()).toBe(1);
      elapsed += wait;
    }
    expect(await deliveryLog(hook.id)).toEqual([expect.objectContaining({ status: 'failed', attempts: 8, responseStatus: 500, nextAttemptAt: null })]);
    expect(receiver.received).toHaveLength(8);
    expect(new Set(receiver.received.map((d) => d.headers['webhook-id'])).size).toBe(1);
    expect(new Set(receiver.received.map((d) => d.body)).size).toBe(1);
    clock.advance(86_400_000);
    expect(await runtime.dispatcher.runDue()).toBe(0);
    clock.set(Date.now());
  });

  it('honours Retry-After: a 503 with Retry-After: 120 is retried after 120 s, not 5 s', async () => {
    const hook = await createHook('/busy');
    receiver.answer({ status: 503, headers: { 'retry-after': '120' } });
    await match(hook.id);
    const start = clock.now();
    await runtime.dispatcher.runDue();
    expect((await deliveryLog(hook.id))[0]).toMatchObject({ status: 'pending', responseStatus: 503, nextAttemptAt: new Date(start + 120_000).toISOString() });
    clock.advance(5_000);
    expect(await runtime.dispatcher.runDue()).toBe(0);
    clock.advance(115_000);
    expect(await runtime.dispatcher.runDue()).toBe(1);
    expect((await deliveryLog(hook.id))[0]).toMatchObject({ status: 'succeeded', attempts: 2, responseStatus: 200 });
    clock.set(Date.now());
  });

  it('410 Gone fails the delivery, disables the webhook and cancels its other pending deliveries; nothing more is queued', async () => {
    const hook = await createHook('/gone');
    receiver.answer({ status: 500 });
    await match(hook.id);
    await runtime.dispatcher.runDue();
    clock.advance(1_000);
    receiver.answer({ status: 410 });
    await match(hook.id);
    expect(await runtime.dispatcher.runDue()).toBe(1);
    const [gone, earlier] = await deliveryLog(hook.id);
    expect(gone).toMatchObject({ status: 'failed', attempts: 1, responseStatus: 410, nextAttemptAt: null });
    expect(earlier).toMatchObject({ status: 'cancelled', attempts: 1, responseStatus: 500, nextAttemptAt: null });
    expect((await call(t, 'GET', `/v1/webhooks/${hook.id}`, { key: t.adminKey })).body.data).toMatchObject({ enabled: false, disabledReason: 'gone' });
    await match(hook.id);
    expect(await deliveryLog(hook.id)).toHaveLength(2);
    expect((await runtime.consumer.targets('mainnet')).map((target) => target.id)).not.toContain(hook.id);
    clock.advance(3_600_000);
    expect(await runtime.dispatcher.runDue()).toBe(0);
    clock.set(Date.now());
  });

  it('a receiver that does not answer in time, or redirects, is a failed attempt; redirects are not followed', async () => {
    const hook = await createHook('/slow');
    receiver.answer('hang');
    await match(hook.id);
    await runtime.dispatcher.runDue();
    expect((await deliveryLog(hook.id))[0]).toMatchObject({ status: 'pending', attempts: 1, responseStatus: null, error: 'no answer within 2000 ms' });

    const moved = await createHook('/moved');
    receiver.answer({ status: 302, headers: { location: `${receiver.url}/elsewhere` } });
    await match(moved.id);
    receiver.received.length = 0;
    await runtime.dispatcher.runDue();
    expect(receiver.received.map((d) => d.path)).toEqual(['/moved']);
    expect((await deliveryLog(moved.id))[0]).toMatchObject({ status: 'pending', attempts: 1, responseStatus: 302, error: 'HTTP 302' });
  });

  it('a large response body is not read past the cap; a 2xx still counts', async () => {
    const hook = await createHook('/chatty');
    receiver.answer({ status: 200, body: 'x'.repeat(1_000_000) });
    await match(hook.id);
    await runtime.dispatcher.runDue();
    expect((await deliveryLog(hook.id))[0]).toMatchObject({ status: 'succeeded', responseStatus: 200 });
  });

  it('pending deliveries survive a restart; one held by a process that died is taken over when its hold ends', async () => {
    // Earlier tests left deliveries pending: settle them first, so this one counts only its own.
    clock.advance(86_400_000);
    while ((await runtime.dispatcher.runDue()) > 0) clock.advance(86_400_000);
    clock.set(Date.now());
    receiver.received.length = 0;

    const hook = await createHook('/restart');
    receiver.answer({ status: 500 });
    await match(hook.id);
    expect(await runtime.dispatcher.runDue()).toBe(1);
    await runtime.close();

    // A new process: the pending delivery is in PostgreSQL, due 5 s after the failure.
    runtime = newRuntime();
    clock.advance(5_000);
    expect(await runtime.dispatcher.runDue()).toBe(1);
    expect((await deliveryLog(hook.id))[0]).toMatchObject({ status: 'succeeded', attempts: 2 });

    // A process claims a delivery and dies before attempting it: the hold (120 s) keeps others off, then ends.
    await match(hook.id);
    const claimed = await claimDueDeliveries(t.db.database, { now: clock.now(), claimUntil: clock.now() + 120_000, limit: 10, paused: new Set() });
    expect(claimed.map((delivery) => delivery.webhookId)).toEqual([hook.id]);
    expect(await runtime.dispatcher.runDue()).toBe(0);
    clock.advance(120_000);
    expect(await runtime.dispatcher.runDue()).toBe(1);
    expect((await deliveryLog(hook.id)).map((d) => d.status)).toEqual(['succeeded', 'succeeded']);
    expect(receiver.received.map((d) => d.path)).toEqual(['/restart', '/restart', '/restart']);
    clock.set(Date.now());
  });

  it('the delivery log pages newest first with limit and cursor, and filters by status', async () => {
    const hook = await createHook('/paged');
    receiver.answer({ status: 500 }, { status: 500 });
    await match(hook.id, 5);
    await runtime.dispatcher.runDue();
    const all = await deliveryLog(hook.id);
    expect(all).toHaveLength(5);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 3; page += 1) {
      const response = await call(t, 'GET', `/v1/webhooks/${hook.id}/deliveries?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { key: t.adminKey });
      const { data, pagination } = response.body as unknown as { data: LoggedDelivery[]; pagination: { limit: number; cursor?: string; hasNext: boolean } };
      seen.push(...data.map((d) => d.id));
      expect(pagination).toEqual(page < 2 ? { limit: 2, cursor: expect.any(String), hasNext: true } : { limit: 2, hasNext: false });
      cursor = pagination.cursor;
    }
    expect(seen).toEqual(all.map((d) => d.id));
    expect((await deliveryLog(hook.id, '?status=pending')).map((d) => d.status)).toEqual(['pending', 'pending']);
    expect(await deliveryLog(hook.id, '?status=succeeded')).toHaveLength(3);
    // A cursor continues the query it was issued for: not the same log filtered another way.
    const first = await call(t, 'GET', `/v1/webhooks/${hook.id}/deliveries?limit=1`, { key: t.adminKey });
    const issued = (first.body['pagination'] as { cursor: string }).cursor;
    const other = await call(t, 'GET', `/v1/webhooks/${hook.id}/deliveries?status=pending&cursor=${encodeURIComponent(issued)}`, { key: t.adminKey });
    expect(other.status).toBe(400);
    expect(other.body.code).toBe('INVALID_CURSOR');
  });
});
