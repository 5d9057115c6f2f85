import { z } from 'zod';
import { errorResponses } from '../../core/index.js';
import type { App } from '../../route-contract/index.js';
import { parseFiltersOf } from '../../streams/index.js';
import { checkEndpointUrl } from '../definitions/endpoint-url.js';
import { getWebhook, updateWebhook, type WebhookChange } from '../definitions/store.js';
import { owner, pausedFor, publicWebhook } from './caller.js';
import type { WebhookRouteDeps } from './deps.js';
import { examples, Webhook, webhookIdSchema, webhookUrlSchema } from './schemas.js';

const body = z.strictObject({
  url: webhookUrlSchema.optional(),
  filters: z.record(z.string(), z.unknown()).optional().meta({ description: 'Filters of the webhook’s type (the type is fixed at creation).' }),
  enabled: z.boolean().optional().meta({ description: 'false switches the endpoint off and cancels its pending deliveries; true switches it on again (also after a 410).' }),
}).meta({ id: 'UpdateWebhookRequest', examples: [examples.UpdateWebhookRequest] });

export function registerUpdateWebhook(app: App, deps: WebhookRouteDeps): void {
  app.patch(
    '/v1/webhooks/:id',
    {
      config: { auth: { scope: 'manage' }, cost: 'free' },
      schema: {
        summary: 'Change a webhook’s URL, filters or enabled state',
        description: 'Errors: 400 VALIDATION_FAILED, 400 WEBHOOK_URL_NOT_ALLOWED, 404 WEBHOOK_NOT_FOUND.',
        tags: ['webhooks'],
        params: z.object({ id: webhookIdSchema }),
        body,
        response: { 200: z.object({ data: Webhook }), ...errorResponses(400, 401, 403, 404, 415) },
      },
    },
    async (request) => {
      const who = owner(request);
      const change: WebhookChange = {};
      if (request.body.url !== undefined) change.url = checkEndpointUrl(request.body.url, deps.policy);
      if (request.body.enabled !== undefined) change.enabled = request.body.enabled;
      if (request.body.filters !== undefined) {
        change.filters = parseFiltersOf((await getWebhook(deps.database, who, request.params.id)).type, request.body.filters);
      }
      const updated = await updateWebhook(deps.database, who, request.params.id, change);
      return { data: publicWebhook(updated, await pausedFor(deps, request)) };
    },
  );
}
