import { z } from 'zod';
import { errorResponses } from '../../core/index.js';
import { listKeys } from '../../identity/index.js';
import type { App } from '../../route-contract/index.js';
import type { ManagementDeps } from '../deps.js';
import { keyListItemSchema } from '../schemas.js';
import { callerOrganizationId } from './caller.js';

export function registerListKeys(app: App, deps: ManagementDeps): void {
  app.get(
    '/v1/keys',
    {
      config: { auth: { scope: 'manage' }, cost: 'free' },
      schema: {
        summary: 'List API keys',
        description: 'All keys of the organization. Secrets are never listed, only their first characters.',
        tags: ['keys'],
        response: { 200: z.object({ data: z.array(keyListItemSchema) }), ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => ({ data: await listKeys(deps.database.db, callerOrganizationId(request)) }),
  );
}
