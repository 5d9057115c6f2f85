import { expect } from 'vitest';
import { createLogger, type ManualClock } from '../../services/core/index.js';
import type { Tier } from '../../services/plans/index.js';
import { createWebhookRuntime, type WebhookRuntime } from '../../services/webhooks/index.js';
import { call } from './management-calls.js';
import { createTestApp, type TestApp } from './test-app.js';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.js';

const SUI = '0x0000000000000000000000000000000000000000000000000000000000000002::sui::SUI';

/**
 * What a webhook delivery test runs against: the gateway app (webhook routes, its request
 * pipeline shared with delivery as in `suigw dev`, so deliveries are charged), a receiver on
 * loopback (allowed over http) and a delivery runtime on the test's clock that attempts only when
 * the test calls `runtime.dispatcher.runDue()`.
 */
export interface WebhookHarness {
  t: TestApp;
  receiver: WebhookReceiver;
  runtime: WebhookRuntime;
  /** SUIGW_SECRET of the app and the runtimes (they must share it to sign). */
  secret: string;
  /** Another runtime on the same database, pipeline and clock: a new `streams` process. Closed with the harness unless closed before. */
  newRuntime(): WebhookRuntime;
  /** POST /v1/webhooks for every SUI balance change, to `path` on the receiver: the 201's id and secret. */
  createHook(path: string): Promise<{ id: string; secret: string }>;
  /** Hands `count` SUI balance changes of a new checkpoint, matched by `webhookId`, to the runtime's consumer, as the ingest does. */
  match(webhookId: string, count: number): Promise<void>;
  /** GET /v1/webhooks/{id}/deliveries (`query` with its `?`): the log's entries. */
  deliveryLog<Entry = Record<string, unknown>>(webhookId: string, query?: string): Promise<Entry[]>;
  close(): Promise<void>;
}

export interface WebhookHarnessOptions {
  clock: ManualClock;
  tier?: Tier;
  /** SUIGW_WEBHOOK_TIMEOUT_MS: an attempt's deadline. */
  timeoutMs?: number;
  secret?: string;
}

export async function startWebhookHarness(options: WebhookHarnessOptions): Promise<WebhookHarness> {
  const { clock } = options;
  const secret = options.secret ?? 'webhook-harness-test-secret-0123456789abcdef';
  const t = await createTestApp({
    tier: options.tier ?? 'enterprise',
    sharedPipeline: true,
    env: {
      SUIGW_SECRET: secret, SUIGW_WEBHOOK_ALLOW_HTTP: 'true', SUIGW_WEBHOOK_ALLOWED_ADDRESSES: '127.0.0.1', SUIGW_WEBHOOK_TIMEOUT_MS: String(options.timeoutMs ?? 2_000),
    },
    extra: { clock },
  });
  const receiver = await startWebhookReceiver();
  const open = new Set<WebhookRuntime>();
  const newRuntime = (): WebhookRuntime => {
    const runtime = createWebhookRuntime({ config: t.config, secret, database: t.db.database, clock, logger: createLogger('silent'), pipeline: t.pipeline!.pipeline, start: false });
    open.add(runtime);
    return {
      ...runtime,
      async close() {
        open.delete(runtime);
        await runtime.close();
      },
    };
  };
  const runtime = newRuntime();
  let checkpoint = 100n;
  return {
    t, receiver, secret, runtime, newRuntime,
    async match(webhookId, count) {
      checkpoint += 1n;
      const events = Array.from({ length: count }, (_, n) => ({
        kind: 'coin' as const, data: { checkpoint: String(checkpoint), digest: `D${n}`, timestampMs: clock.now(), address: `0x${'5'.repeat(64)}`, coinType: SUI, amount: String(n) },
      }));
      await runtime.consumer.accept('mainnet', checkpoint, new Map([[webhookId, events]]));
    },
    async createHook(path) {
      const response = await call(t, 'POST', '/v1/webhooks', { key: t.adminKey, body: { url: `${receiver.url}${path}`, type: 'coin', filters: { coinTypes: ['0x2::sui::SUI'] } } });
      expect(response.status).toBe(201);
      return response.body.data as { id: string; secret: string };
    },
    async deliveryLog<Entry>(webhookId: string, query = '') {
      const response = await call(t, 'GET', `/v1/webhooks/${webhookId}/deliveries${query}`, { key: t.adminKey });
      expect(response.status).toBe(200);
      return response.body.data as Entry[];
    },
    async close() {
      for (const runtime of open) await runtime.close();
      await receiver.close();
      await t.close();
    },
  };
}
