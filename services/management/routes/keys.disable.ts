import { z } from 'zod';
import { errorResponses } from '../../core/index.js';
import { disableKey } from '../../identity/index.js';
import type { App, AppDeps } from '../../http/index.js';
import { callerOrganizationId } from './caller.js';

export function registerDisableKey(app: App, deps: AppDeps): void {
  app.delete(
    '/v1/keys/:id',
    {
      config: { auth: { scope: 'manage' } },
      schema: {
        summary: 'Disable an API key',
        description: 'Immediate and idempotent. A key may disable itself; later calls with it fail with 401.',
        tags: ['keys'],
        params: z.object({ id: z.string().min(1).max(64) }),
        response: {
          200: z.object({ data: z.object({ id: z.string(), enabled: z.literal(false) }) }),
          ...errorResponses(401, 403, 404),
        },
      },
    },
    async (request) => ({
      data: await disableKey(deps.database, deps.clock, callerOrganizationId(request), request.params.id),
    }),
  );
}
