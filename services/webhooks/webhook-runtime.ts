import type { Registry } from 'prom-client';
import { deriveSubkey, type Clock, type Config, type Logger } from '../core/index.js';
import type { Database } from '../db/index.js';
import type { RequestPipeline } from '../pipeline/index.js';
import { SecretBox } from './definitions/signing-secret.js';
import { DeliveryCharges } from './delivery/delivery-charges.js';
import { WebhookDispatcher } from './delivery/dispatcher.js';
import { EndpointClient } from './delivery/endpoint-client.js';
import { WebhookMatchConsumer } from './delivery/webhook-consumer.js';
import { WebhookMetrics } from './delivery/webhook-metrics.js';

/** The sealing box of webhook secrets: the same SUIGW_SECRET on the gateway (create, rotate) and on `streams` (sign). */
export function webhookSecretBox(secret: string): SecretBox {
  return new SecretBox(deriveSubkey(secret, 'webhook-secrets'));
}

export interface WebhookRuntime {
  /** Hand to the Warp runtime's ingests: webhooks are matched with the streams. */
  consumer: WebhookMatchConsumer;
  dispatcher: WebhookDispatcher;
  close(): Promise<void>;
}

export interface WebhookRuntimeOptions {
  config: Readonly<Config>;
  secret: string;
  database: Database;
  clock: Clock;
  logger: Logger;
  /** The process's request pipeline: deliveries are charged through its meter, as Warp events are (docs/costs.md). */
  pipeline: RequestPipeline;
  /** Poll and attempt on a timer (a process); off in tests, which call `dispatcher.runDue()`. */
  start: boolean;
  /** The process's registry: attempts by result and the backlog (docs/operations.md). */
  registry?: Registry;
}

/** Webhook delivery of one process (`suigw streams`, `suigw dev`): queue from the ingest, attempt from PostgreSQL. */
export function createWebhookRuntime(options: WebhookRuntimeOptions): WebhookRuntime {
  const client = new EndpointClient({ timeoutMs: options.config.webhooks.timeoutMs, allowedAddresses: options.config.webhooks.allowedAddresses });
  const logger = options.logger.child({ module: 'webhooks' });
  const metrics = options.registry ? new WebhookMetrics({ registry: options.registry, database: options.database, clock: options.clock, logger }) : undefined;
  const dispatcher = new WebhookDispatcher({
    database: options.database, clock: options.clock, logger, box: webhookSecretBox(options.secret), client,
    charges: new DeliveryCharges(options.pipeline), ...(metrics ? { metrics } : {}),
  });
  const consumer = new WebhookMatchConsumer({ database: options.database, clock: options.clock, onQueued: () => dispatcher.wake() });
  if (options.start) dispatcher.start();
  return {
    consumer,
    dispatcher,
    async close() {
      await dispatcher.stop();
      client.close();
    },
  };
}
