import { z } from 'zod';
import { errorResponses } from '../../core/index.js';
import type { App } from '../../route-contract/index.js';
import { deleteWebhook } from '../definitions/store.js';
import { owner } from './caller.js';
import type { WebhookRouteDeps } from './deps.js';
import { webhookIdSchema } from './schemas.js';

export function registerDeleteWebhook(app: App, deps: WebhookRouteDeps): void {
  app.delete(
    '/v1/webhooks/:id',
    {
      config: { auth: { scope: 'manage' }, cost: 'free' },
      schema: {
        summary: 'Delete a webhook',
        description: 'Nothing more is queued, pending deliveries are cancelled, the plan slot is freed. Errors: 404 WEBHOOK_NOT_FOUND.',
        tags: ['webhooks'],
        params: z.object({ id: webhookIdSchema }),
        response: {
          200: z.object({ data: z.object({ id: z.string(), deleted: z.literal(true) }) }),
          ...errorResponses(401, 403, 404),
        },
      },
    },
    async (request) => {
      await deleteWebhook(deps.database, deps.clock, owner(request), request.params.id);
      return { data: { id: request.params.id, deleted: true as const } };
    },
  );
}
