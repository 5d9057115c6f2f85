import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../../test/support/management-calls.js';
import { startWebhookHarness, type WebhookHarness } from '../../../test/support/webhook-harness.js';
import { ManualClock } from '../../core/index.js';
import { createKey, createOrganization } from '../../identity/index.js';

const SUI = '0x0000000000000000000000000000000000000000000000000000000000000002::sui::SUI';

interface LoggedDelivery { id: string; status: string; attempts: number; responseStatus: number | null; nextAttemptAt: string | null }

/**
 * `POST /v1/webhooks/{id}/deliveries/{deliveryId}/redeliver` (docs/webhooks.md): a finished
 * delivery is queued again by hand, with the same body and `webhook-id`, and goes out through the
 * dispatcher to a real receiver. Before, a failed delivery could never be sent again.
 */
describe('manual redelivery', () => {
  const clock = new ManualClock(Date.UTC(2026, 10, 20, 12));
  let h: WebhookHarness;
  let checkpoint = 100n;
  beforeAll(async () => {
    h = await startWebhookHarness({ clock });
  });
  afterEach(() => {
    h.receiver.received.length = 0;
  });
  afterAll(async () => h.close());

  async function match(webhookId: string): Promise<void> {
    checkpoint += 1n;
    const event = { kind: 'coin' as const, data: { checkpoint: String(checkpoint), digest: 'D', timestampMs: clock.now(), address: `0x${'5'.repeat(64)}`, coinType: SUI, amount: '1' } };
    await h.runtime.consumer.accept('mainnet', checkpoint, new Map([[webhookId, [event]]]));
  }
  const redeliver = (webhookId: string, deliveryId: string, key = h.t.adminKey) =>
    call(h.t, 'POST', `/v1/webhooks/${webhookId}/deliveries/${deliveryId}/redeliver`, { key });
  const refusal = (error: string, code: string) => ({ error, code, requestId: expect.any(String) });

  it('a failed delivery is sent again with the same webhook-id and body once its webhook is on; a pending one is 409', async () => {
    const hook = await h.createHook('/gone');
    h.receiver.answer({ status: 410 });
    await match(hook.id);
    expect(await h.runtime.dispatcher.runDue()).toBe(1);
    const [failed] = await h.deliveryLog<LoggedDelivery>(hook.id);
    expect(failed).toMatchObject({ status: 'failed', attempts: 1, responseStatus: 410 });

    // The 410 switched the webhook off: nothing of it may be pending.
    const disabled = await redeliver(hook.id, failed!.id);
    expect(disabled).toMatchObject({ status: 409, body: refusal('Webhook disabled', 'WEBHOOK_DISABLED') });
    expect((await call(h.t, 'PATCH', `/v1/webhooks/${hook.id}`, { key: h.t.adminKey, body: { enabled: true } })).status).toBe(200);

    const queued = await redeliver(hook.id, failed!.id);
    expect(queued.status).toBe(200);
    expect(queued.body.data).toEqual({
      id: failed!.id, eventType: 'coin', status: 'pending', attempts: 0, responseStatus: 410, error: 'HTTP 410',
      lastAttemptAt: new Date(clock.now()).toISOString(), nextAttemptAt: new Date(clock.now()).toISOString(), createdAt: new Date(clock.now()).toISOString(),
    });
    // Queued (or in flight): it is attempted on its schedule already.
    expect(await redeliver(hook.id, failed!.id)).toMatchObject({ status: 409, body: refusal('Webhook delivery pending', 'WEBHOOK_DELIVERY_PENDING') });

    expect(await h.runtime.dispatcher.runDue()).toBe(1);
    const [first, again] = h.receiver.received;
    expect(again!.headers['webhook-id']).toBe(failed!.id);
    expect(again!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(again!.body).toBe(first!.body);
    expect(await h.deliveryLog<LoggedDelivery>(hook.id)).toEqual([expect.objectContaining({ id: failed!.id, status: 'succeeded', attempts: 1, responseStatus: 200 })]);

    // A succeeded delivery may be sent again too (a receiver that lost it); the receiver drops it by its id if it had it.
    expect((await redeliver(hook.id, failed!.id)).status).toBe(200);
    expect(await h.runtime.dispatcher.runDue()).toBe(1);
    expect(h.receiver.received.map((d) => d.headers['webhook-id'])).toEqual([failed!.id, failed!.id, failed!.id]);
  });

  it('404 for an unknown delivery, another webhook\'s delivery, and another organization\'s webhook or delivery', async () => {
    const mine = await h.createHook('/mine');
    const other = await h.createHook('/other');
    await match(other.id);
    const [othersDelivery] = await h.deliveryLog<LoggedDelivery>(other.id);
    const notFound = refusal('Webhook delivery not found', 'WEBHOOK_DELIVERY_NOT_FOUND');
    expect(await redeliver(mine.id, 'msg_unknown')).toMatchObject({ status: 404, body: notFound });
    expect(await redeliver(mine.id, othersDelivery!.id)).toMatchObject({ status: 404, body: notFound });

    const seeded = await createOrganization(h.t.db.database.db, clock, { name: 'Other', tier: 'team', projects: [{ name: 'Default', network: 'mainnet' }] });
    const otherKey = await createKey(h.t.db.database, clock, { kind: 'operator' }, {
      organizationId: seeded.organization.id, projectId: seeded.projects[0]!.id, name: 'o', scopes: ['manage'], expiresInDays: 30,
    });
    expect(await redeliver(other.id, othersDelivery!.id, otherKey.apiKey)).toMatchObject({ status: 404, body: refusal('Webhook not found', 'WEBHOOK_NOT_FOUND') });
    expect(await redeliver('wh_unknown', othersDelivery!.id)).toMatchObject({ status: 404, body: refusal('Webhook not found', 'WEBHOOK_NOT_FOUND') });
    // Nothing was queued by the refusals: the delivery is as the ingest left it.
    expect(await h.deliveryLog<LoggedDelivery>(other.id)).toEqual([expect.objectContaining({ status: 'pending', attempts: 0 })]);
  });
});

/**
 * A delivery cancelled (its webhook switched off) while its attempt is in flight is still in
 * flight: docs/webhooks.md answers 409 WEBHOOK_DELIVERY_PENDING for one "queued or in flight".
 * Before, switching the webhook on again and redelivering queued it at once: a second attempt of
 * the same delivery went out beside the first, and the first's late answer was recorded over the
 * redelivery (its attempt count lost one).
 */
describe('manual redelivery of a delivery whose cancelled attempt is still in flight', () => {
  const clock = new ManualClock(Date.UTC(2026, 10, 20, 12));
  let h: WebhookHarness;
  // The held attempt is answered by the test, never by its deadline.
  beforeAll(async () => {
    h = await startWebhookHarness({ clock, timeoutMs: 60_000 });
  });
  afterAll(async () => h.close());

  it('is 409 WEBHOOK_DELIVERY_PENDING until that attempt is recorded, then queued again: never two attempts at once', async () => {
    const hook = await h.createHook('/in-flight');
    const event = { kind: 'coin' as const, data: { checkpoint: '7', digest: 'D', timestampMs: clock.now(), address: `0x${'5'.repeat(64)}`, coinType: SUI, amount: '1' } };
    await h.runtime.consumer.accept('mainnet', 7n, new Map([[hook.id, [event]]]));
    h.receiver.answer('hang');
    const pass = h.runtime.dispatcher.runDue();
    await expect.poll(() => h.receiver.received.length, { timeout: 20_000 }).toBe(1);

    for (const enabled of [false, true]) expect((await call(h.t, 'PATCH', `/v1/webhooks/${hook.id}`, { key: h.t.adminKey, body: { enabled } })).status).toBe(200);
    const [cancelled] = await h.deliveryLog<LoggedDelivery>(hook.id);
    expect(cancelled).toMatchObject({ status: 'cancelled', attempts: 0 });
    const redeliver = () => call(h.t, 'POST', `/v1/webhooks/${hook.id}/deliveries/${cancelled!.id}/redeliver`, { key: h.t.adminKey });
    expect(await redeliver()).toMatchObject({ status: 409, body: { error: 'Webhook delivery pending', code: 'WEBHOOK_DELIVERY_PENDING', requestId: expect.any(String) } });
    // Nothing of it is due meanwhile: another process's pass attempts nothing.
    const other = h.newRuntime();
    expect(await other.dispatcher.runDue()).toBe(0);
    expect(h.receiver.received).toHaveLength(1);

    h.receiver.answerHanging(500);
    expect(await pass).toBe(1);
    expect(await h.deliveryLog<LoggedDelivery>(hook.id)).toEqual([expect.objectContaining({ status: 'cancelled', attempts: 1, responseStatus: 500 })]);

    expect((await redeliver()).status).toBe(200);
    expect(await h.runtime.dispatcher.runDue()).toBe(1);
    expect(h.receiver.received.map((d) => d.headers['webhook-id'])).toEqual([cancelled!.id, cancelled!.id]);
    expect(await h.deliveryLog<LoggedDelivery>(hook.id)).toEqual([expect.objectContaining({ status: 'succeeded', attempts: 1, responseStatus: 200 })]);
  });
});
