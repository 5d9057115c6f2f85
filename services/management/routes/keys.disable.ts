import { z } from 'zod';
import { errorResponses } from '../../core/index.js';
import { disableKey } from '../../identity/index.js';
import type { App } from '../../route-contract/index.js';
import type { ManagementDeps } from '../deps.js';
import { idSchema } from '../schemas.js';
import { callerOrganizationId } from './caller.js';

export function registerDisableKey(app: App, deps: ManagementDeps): void {
  app.delete(
    '/v1/keys/:id',
    {
      config: { auth: { scope: 'manage' }, cost: 'free' },
      schema: {
        summary: 'Disable an API key',
        description: 'Immediate and idempotent. A key may disable itself; later calls with it fail with 401.',
        tags: ['keys'],
        params: z.object({ id: idSchema }),
        response: {
          200: z.object({ data: z.object({ id: z.string(), enabled: z.literal(false) }) }),
          ...errorResponses(401, 403, 404),
        },
      },
    },
    async (request) => {
      const disabled = await disableKey(deps.database, deps.clock, callerOrganizationId(request), request.params.id);
      deps.identityChanged({ keyId: disabled.id });
      return { data: disabled };
    },
  );
}
