import type { App, Capability } from '../route-contract/index.js';
import type { WebhookRouteDeps } from './routes/deps.js';
import { registerCreateWebhook } from './routes/webhooks.create.js';
import { registerDeleteWebhook } from './routes/webhooks.delete.js';
import { registerListDeliveries } from './routes/webhooks.deliveries.js';
import { registerReadWebhooks } from './routes/webhooks.read.js';
import { registerRedeliver } from './routes/webhooks.redeliver.js';
import { registerRotateWebhookSecret } from './routes/webhooks.rotate-secret.js';
import { registerUpdateWebhook } from './routes/webhooks.update.js';

export type { WebhookRouteDeps } from './routes/deps.js';
export type { EndpointPolicy } from './definitions/endpoint-url.js';
export { createWebhookRuntime, webhookSecretBox, type WebhookRuntime, type WebhookRuntimeOptions } from './webhook-runtime.js';
export { RETRY_SCHEDULE_MS, MAX_ATTEMPTS } from './delivery/retry-schedule.js';

/** Webhook management (`/v1/webhooks`, manage scope), registered once per network. */
export function webhooksCapability(deps: WebhookRouteDeps): Capability {
  return (app: App) => {
    registerCreateWebhook(app, deps);
    registerReadWebhooks(app, deps);
    registerUpdateWebhook(app, deps);
    registerDeleteWebhook(app, deps);
    registerRotateWebhookSecret(app, deps);
    registerListDeliveries(app, deps);
    registerRedeliver(app, deps);
  };
}
