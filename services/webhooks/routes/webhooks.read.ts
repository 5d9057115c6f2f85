import { z } from 'zod';
import { errorResponses } from '../../core/index.js';
import type { App } from '../../route-contract/index.js';
import { getWebhook, listWebhooks } from '../definitions/store.js';
import { owner, pausedFor, publicWebhook } from './caller.js';
import type { WebhookRouteDeps } from './deps.js';
import { Webhook, webhookIdSchema } from './schemas.js';

export function registerReadWebhooks(app: App, deps: WebhookRouteDeps): void {
  app.get(
    '/v1/webhooks',
    {
      config: { auth: { scope: 'manage' }, cost: 'free' },
      schema: {
        summary: 'List webhooks',
        description: 'The organization’s webhooks on the key’s network, oldest first. Secrets are never listed.',
        tags: ['webhooks'],
        response: { 200: z.object({ data: z.array(Webhook) }), ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const [webhooks, paused] = await Promise.all([listWebhooks(deps.database, owner(request)), pausedFor(deps, request)]);
      return { data: webhooks.map((webhook) => publicWebhook(webhook, paused)) };
    },
  );
  app.get(
    '/v1/webhooks/:id',
    {
      config: { auth: { scope: 'manage' }, cost: 'free' },
      schema: {
        summary: 'Get a webhook',
        description: 'Errors: 404 WEBHOOK_NOT_FOUND.',
        tags: ['webhooks'],
        params: z.object({ id: webhookIdSchema }),
        response: { 200: z.object({ data: Webhook }), ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const webhook = await getWebhook(deps.database, owner(request), request.params.id);
      return { data: publicWebhook(webhook, await pausedFor(deps, request)) };
    },
  );
}
