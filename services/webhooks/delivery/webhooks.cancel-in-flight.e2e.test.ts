import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../../test/support/test-app.js';
import { call } from '../../../test/support/management-calls.js';
import { startWebhookHarness, type WebhookHarness } from '../../../test/support/webhook-harness.js';
import type { WebhookReceiver } from '../../../test/support/webhook-receiver.js';
import { ManualClock } from '../../core/index.js';
import type { WebhookRuntime } from '../webhook-runtime.js';
import { webhooksDb } from '../definitions/store.js';

const SUI = '0x0000000000000000000000000000000000000000000000000000000000000002::sui::SUI';

interface LoggedDelivery { status: string; attempts: number; responseStatus: number | null; nextAttemptAt: string | null }

/**
 * A webhook disabled or deleted while one of its deliveries is being attempted: the cancellation
 * (docs/webhooks.md: `enabled: false` and DELETE cancel pending deliveries) must survive the
 * attempt's answer. Before, the answer's record set the cancelled delivery back to `pending`: it
 * was retried once the webhook was switched on again, and a deleted webhook's delivery stayed
 * due for ever (`suigw_webhook_deliveries_due`, `suigw_webhook_oldest_due_seconds` grew).
 */
describe('webhook deliveries cancelled while their attempt is in flight', () => {
  const clock = new ManualClock(Date.now());
  let h: WebhookHarness;
  let t: TestApp;
  let receiver: WebhookReceiver;
  let runtime: WebhookRuntime;
  let checkpoint = 100n;

  beforeAll(async () => {
    h = await startWebhookHarness({ clock, timeoutMs: 60_000 });
    ({ t, receiver, runtime } = h);
  });
  afterAll(async () => h.close());

  const createHook = async (path: string) => (await h.createHook(path)).id;
  const deliveryLog = (webhookId: string) => h.deliveryLog<LoggedDelivery>(webhookId);

  /** Queues one match, starts its attempt, and resolves once the receiver holds the request unanswered. */
  async function attemptHeld(webhookId: string): Promise<{ pass: Promise<number> }> {
    checkpoint += 1n;
    const event = { kind: 'coin' as const, data: { checkpoint: String(checkpoint), digest: 'D', timestampMs: clock.now(), address: `0x${'5'.repeat(64)}`, coinType: SUI, amount: '1' } };
    await runtime.consumer.accept('mainnet', checkpoint, new Map([[webhookId, [event]]]));
    const before = receiver.received.length;
    receiver.answer('hang');
    const pass = runtime.dispatcher.runDue();
    await expect.poll(() => receiver.received.length, { timeout: 20_000 }).toBe(before + 1);
    // Wrapped: an async function returning the pass itself would wait for it.
    return { pass };
  }

  it('disabled during a failing attempt: the delivery stays cancelled and is not retried once the webhook is on again', async () => {
    const id = await createHook('/disabled');
    const { pass } = await attemptHeld(id);
    expect((await call(t, 'PATCH', `/v1/webhooks/${id}`, { key: t.adminKey, body: { enabled: false } })).status).toBe(200);
    receiver.answerHanging(500);
    expect(await pass).toBe(1);
    expect(await deliveryLog(id)).toEqual([expect.objectContaining({ status: 'cancelled', attempts: 1, responseStatus: 500, nextAttemptAt: null })]);

    expect((await call(t, 'PATCH', `/v1/webhooks/${id}`, { key: t.adminKey, body: { enabled: true } })).status).toBe(200);
    clock.advance(86_400_000);
    expect(await runtime.dispatcher.runDue()).toBe(0);
    expect(await deliveryLog(id)).toEqual([expect.objectContaining({ status: 'cancelled', attempts: 1 })]);
    clock.set(Date.now());
  });

  it('disabled during an attempt the receiver accepts: the log says succeeded (it was delivered)', async () => {
    const id = await createHook('/accepted');
    const { pass } = await attemptHeld(id);
    expect((await call(t, 'PATCH', `/v1/webhooks/${id}`, { key: t.adminKey, body: { enabled: false } })).status).toBe(200);
    receiver.answerHanging(200);
    expect(await pass).toBe(1);
    expect(await deliveryLog(id)).toEqual([expect.objectContaining({ status: 'succeeded', attempts: 1, responseStatus: 200, nextAttemptAt: null })]);
  });

  it('deleted during a failing attempt: nothing of it is left pending (nor counted as due)', async () => {
    const id = await createHook('/deleted');
    const { pass } = await attemptHeld(id);
    expect((await call(t, 'DELETE', `/v1/webhooks/${id}`, { key: t.adminKey })).status).toBe(200);
    receiver.answerHanging(503);
    expect(await pass).toBe(1);
    const rows = await webhooksDb(t.db.database).selectFrom('webhook_deliveries').select(['status', 'attempts', 'last_response_status', 'next_attempt_at'])
      .where('webhook_id', '=', id).execute();
    expect(rows).toEqual([{ status: 'cancelled', attempts: 1, last_response_status: 503, next_attempt_at: null }]);
  });
});
