import { z } from 'zod';
import { errorResponses } from '../../core/index.js';
import { planOf } from '../../plans/index.js';
import type { App } from '../../route-contract/index.js';
import { FILTER_SCHEMAS } from '../../streams/index.js';
import { checkEndpointUrl } from '../definitions/endpoint-url.js';
import { createWebhook } from '../definitions/store.js';
import { caller, owner } from './caller.js';
import type { WebhookRouteDeps } from './deps.js';
import { CreatedWebhook, examples, webhookUrlSchema } from './schemas.js';

// The stream types and filters of /v1/streams, one strict object per type.
const body = z.discriminatedUnion('type', [
  z.strictObject({ url: webhookUrlSchema, type: z.literal('event'), filters: FILTER_SCHEMAS.event }),
  z.strictObject({ url: webhookUrlSchema, type: z.literal('address'), filters: FILTER_SCHEMAS.address }),
  z.strictObject({ url: webhookUrlSchema, type: z.literal('coin'), filters: FILTER_SCHEMAS.coin }),
  z.strictObject({ url: webhookUrlSchema, type: z.literal('object'), filters: FILTER_SCHEMAS.object }),
]).meta({ id: 'CreateWebhookRequest', examples: [examples.CreateWebhookRequest] });

export function registerCreateWebhook(app: App, deps: WebhookRouteDeps): void {
  app.post(
    '/v1/webhooks',
    {
      config: { auth: { scope: 'manage' }, cost: 'free' },
      schema: {
        summary: 'Create a webhook',
        description:
          'Push delivery of the events a stream of the same type and filters would receive, to an HTTPS endpoint, ' +
          'signed per Standard Webhooks. The secret is in this response only. ' +
          'Errors: 400 VALIDATION_FAILED, 400 WEBHOOK_URL_NOT_ALLOWED (not https, credentials, private address), ' +
          '403 WEBHOOK_LIMIT_REACHED (plan limit). ' +
          'The webhook applies to every checkpoint from `fromCheckpoint` on, so to anything executed after this answer.',
        tags: ['webhooks'],
        body,
        response: { 201: z.object({ data: CreatedWebhook }), ...errorResponses(400, 401, 403, 404, 415) },
      },
    },
    async (request, reply) => {
      const principal = caller(request);
      const { url, ...filter } = request.body;
      const { webhook, secret, fromCheckpoint } = await createWebhook(deps.database, deps.clock, deps.box, {
        ...filter, ...owner(request), url: checkEndpointUrl(url, deps.policy), limit: planOf(principal.organization).webhooks,
      });
      return reply.code(201).send({
        data: { id: webhook.id, url: webhook.url, type: webhook.type, filters: webhook.filters as Record<string, unknown>, secret, fromCheckpoint },
      });
    },
  );
}
