import { z } from 'zod';
import { ApiError, errorResponses, type CursorScope } from '../../core/index.js';
import type { App } from '../../route-contract/index.js';
import { getWebhook } from '../definitions/store.js';
import { DELIVERY_STATUSES, listDeliveries } from '../delivery/deliveries.js';
import { owner } from './caller.js';
import type { WebhookRouteDeps } from './deps.js';
import { WebhookDelivery, webhookIdSchema } from './schemas.js';

const query = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(50).meta({ description: '1 to 100, default 50.' }),
  cursor: z.string().max(1_000).optional(),
  status: z.enum(DELIVERY_STATUSES).optional(),
});

export function registerListDeliveries(app: App, deps: WebhookRouteDeps): void {
  app.get(
    '/v1/webhooks/:id/deliveries',
    {
      config: { auth: { scope: 'manage' }, cost: 'free' },
      schema: {
        summary: 'A webhook’s delivery log',
        description:
          'Deliveries newest first: status (pending, succeeded, failed, cancelled), attempts, the last response status, ' +
          'the next attempt. Paginated with `limit` and `cursor`. Errors: 400 INVALID_CURSOR, 404 WEBHOOK_NOT_FOUND.',
        tags: ['webhooks'],
        params: z.object({ id: webhookIdSchema }),
        querystring: query,
        response: {
          200: z.object({
            data: z.array(WebhookDelivery),
            pagination: z.object({ limit: z.number().int(), cursor: z.string().optional(), hasNext: z.boolean() }),
          }),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) => {
      const who = owner(request);
      const webhook = await getWebhook(deps.database, who, request.params.id);
      const { limit, cursor, status } = request.query;
      const scope: CursorScope = { kind: 'webhook-deliveries', network: who.network, query: `${webhook.id}|${status ?? ''}` };
      let before: string | undefined;
      if (cursor !== undefined) {
        before = deps.cursors.decode(scope, cursor);
        if (!/^\d{1,19}$/.test(before)) throw new ApiError('INVALID_CURSOR', { message: 'Invalid cursor: malformed cursor' });
      }
      const page = await listDeliveries(deps.database, webhook.id, { limit, before, status });
      return {
        data: page.records,
        pagination: { limit, ...(page.next === undefined ? {} : { cursor: deps.cursors.encode(scope, page.next) }), hasNext: page.next !== undefined },
      };
    },
  );
}
