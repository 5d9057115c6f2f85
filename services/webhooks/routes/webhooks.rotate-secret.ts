import { z } from 'zod';
import { errorResponses } from '../../core/index.js';
import type { App } from '../../route-contract/index.js';
import { rotateWebhookSecret } from '../definitions/store.js';
import { owner } from './caller.js';
import type { WebhookRouteDeps } from './deps.js';
import { RotatedWebhookSecret, webhookIdSchema } from './schemas.js';

export function registerRotateWebhookSecret(app: App, deps: WebhookRouteDeps): void {
  app.post(
    '/v1/webhooks/:id/rotate-secret',
    {
      config: { auth: { scope: 'manage' }, cost: 'free' },
      schema: {
        summary: 'Rotate a webhook’s signing secret',
        description:
          'A new secret, shown once. For 24 hours deliveries carry two signatures (`v1,<new> v1,<previous>`), so the ' +
          'receiver can switch secrets without losing a delivery. Errors: 404 WEBHOOK_NOT_FOUND.',
        tags: ['webhooks'],
        params: z.object({ id: webhookIdSchema }),
        response: { 200: z.object({ data: RotatedWebhookSecret }), ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const rotated = await rotateWebhookSecret(deps.database, deps.clock, deps.box, owner(request), request.params.id);
      return { data: { id: request.params.id, secret: rotated.secret, previousSecretExpiresAt: rotated.previousExpiresAt } };
    },
  );
}
