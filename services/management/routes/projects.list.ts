import { z } from 'zod';
import { errorResponses } from '../../core/index.js';
import { listProjects } from '../../identity/index.js';
import type { App } from '../../route-contract/index.js';
import type { ManagementDeps } from '../deps.js';
import { projectSchema } from '../schemas.js';
import { callerOrganizationId } from './caller.js';

export function registerListProjects(app: App, deps: ManagementDeps): void {
  app.get(
    '/v1/projects',
    {
      config: { auth: { scope: 'manage' }, cost: 'free' },
      schema: {
        summary: 'List projects',
        tags: ['projects'],
        response: { 200: z.object({ data: z.array(projectSchema) }), ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => ({ data: await listProjects(deps.database.db, callerOrganizationId(request)) }),
  );
}
