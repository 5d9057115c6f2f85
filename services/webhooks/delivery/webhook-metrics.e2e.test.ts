import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/support/test-app.js';
import { call } from '../../../test/support/management-calls.js';
import { startWebhookReceiver } from '../../../test/support/webhook-receiver.js';
import { ManualClock, createLogger } from '../../core/index.js';
import { createWebhookRuntime, type WebhookRuntime } from '../webhook-runtime.js';
import { RETRY_SCHEDULE_MS } from './retry-schedule.js';

const SECRET = 'webhook-metrics-test-secret-0123456789abcdef';
const SUI = '0x0000000000000000000000000000000000000000000000000000000000000002::sui::SUI';

/**
 * The delivery instruments over a real database and receiver, on the manual clock: attempts by
 * result as the receiver answers 500, 200 and 410, and the backlog (due count, oldest wait) read
 * from PostgreSQL at each scrape as deliveries come due and go.
 */
describe('webhook delivery metrics', () => {
  const clock = new ManualClock(Date.now());
  const registry = new Registry();
  let t: TestApp;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let runtime: WebhookRuntime;

  beforeAll(async () => {
    t = await createTestApp({
      sharedPipeline: true,
      tier: 'enterprise',
      env: { SUIGW_SECRET: SECRET, SUIGW_WEBHOOK_ALLOW_HTTP: 'true', SUIGW_WEBHOOK_ALLOWED_ADDRESSES: '127.0.0.1', SUIGW_WEBHOOK_TIMEOUT_MS: '2000' },
      extra: { clock },
    });
    receiver = await startWebhookReceiver();
    runtime = createWebhookRuntime({ config: t.config, secret: SECRET, database: t.db.database, clock, logger: createLogger('silent'), pipeline: t.pipeline!.pipeline, start: false, registry });
  });
  afterAll(async () => {
    await runtime.close();
    await receiver.close();
    await t.close();
  });

  const scrape = async () => (await registry.metrics()).split('\n').filter((line) => line.startsWith('suigw_webhook_'));

  it('exports every attempt result at 0 and an empty backlog before any delivery', async () => {
    expect(await scrape()).toEqual([
      'suigw_webhook_attempts_total{result="succeeded"} 0',
      'suigw_webhook_attempts_total{result="retrying"} 0',
      'suigw_webhook_attempts_total{result="failed"} 0',
      'suigw_webhook_deliveries_due 0',
      'suigw_webhook_oldest_due_seconds 0',
    ]);
  });

  it('counts attempts by what they left the delivery as, and the backlog as deliveries come due', async () => {
    const created = await call(t, 'POST', '/v1/webhooks', { key: t.adminKey, body: { url: `${receiver.url}/hook`, type: 'coin', filters: { coinTypes: ['0x2::sui::SUI'] } } });
    expect(created.status).toBe(201);
    const webhookId = (created.body.data as { id: string }).id;
    const events = [1, 2].map((n) => ({ kind: 'coin' as const, data: { checkpoint: '7', digest: `D${n}`, timestampMs: clock.now(), address: `0x${'5'.repeat(64)}`, coinType: SUI, amount: String(n) } }));
    await runtime.consumer.accept('mainnet', 7n, new Map([[webhookId, events]]));
    clock.advance(30_000);
    expect(await scrape()).toEqual(expect.arrayContaining(['suigw_webhook_deliveries_due 2', 'suigw_webhook_oldest_due_seconds 30']));

    receiver.answer({ status: 500 }, { status: 200 });
    expect(await runtime.dispatcher.runDue()).toBe(2);
    expect(await scrape()).toEqual([
      'suigw_webhook_attempts_total{result="succeeded"} 1',
      'suigw_webhook_attempts_total{result="retrying"} 1',
      'suigw_webhook_attempts_total{result="failed"} 0',
      'suigw_webhook_deliveries_due 0',
      'suigw_webhook_oldest_due_seconds 0',
    ]);

    // The retry comes due after the schedule's second step; it waits 2 s more before an attempt.
    clock.advance(RETRY_SCHEDULE_MS[1] + 2_000);
    expect(await scrape()).toEqual(expect.arrayContaining(['suigw_webhook_deliveries_due 1', 'suigw_webhook_oldest_due_seconds 2']));

    // 410 Gone gives the delivery up (and disables the webhook).
    receiver.answer({ status: 410 });
    expect(await runtime.dispatcher.runDue()).toBe(1);
    expect(await scrape()).toEqual([
      'suigw_webhook_attempts_total{result="succeeded"} 1',
      'suigw_webhook_attempts_total{result="retrying"} 1',
      'suigw_webhook_attempts_total{result="failed"} 1',
      'suigw_webhook_deliveries_due 0',
      'suigw_webhook_oldest_due_seconds 0',
    ]);
  });
});
