import { z } from 'zod';
import { errorResponses } from '../../core/index.js';
import type { App } from '../../route-contract/index.js';
import { getWebhook } from '../definitions/store.js';
import { redeliver } from '../delivery/deliveries.js';
import { owner } from './caller.js';
import type { WebhookRouteDeps } from './deps.js';
import { WebhookDelivery, webhookIdSchema } from './schemas.js';

export function registerRedeliver(app: App, deps: WebhookRouteDeps): void {
  app.post(
    '/v1/webhooks/:id/deliveries/:deliveryId/redeliver',
    {
      config: { auth: { scope: 'manage' }, cost: 'free' },
      schema: {
        summary: 'Send a finished delivery again',
        description:
          'Queues a delivery that succeeded, failed or was cancelled again, due now with a fresh retry schedule: the same ' +
          'body and the same `webhook-id`, so a receiver that had it drops the duplicate. Charged as any delivery, 1 credit ' +
          'when the receiver answers 2xx. Answers the delivery as the log shows it (`pending`, 0 attempts). Errors: 404 ' +
          'WEBHOOK_NOT_FOUND, 404 WEBHOOK_DELIVERY_NOT_FOUND, 409 WEBHOOK_DELIVERY_PENDING (queued or in flight), 409 ' +
          'WEBHOOK_DISABLED (switch it on first).',
        tags: ['webhooks'],
        params: z.object({ id: webhookIdSchema, deliveryId: z.string().min(1).max(64) }),
        response: { 200: z.object({ data: WebhookDelivery }), ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request) => {
      const webhook = await getWebhook(deps.database, owner(request), request.params.id);
      return { data: await redeliver(deps.database, webhook.id, request.params.deliveryId, deps.clock.now()) };
    },
  );
}
