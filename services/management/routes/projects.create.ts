import { z } from 'zod';
import { errorResponses } from '../../core/index.js';
import { createProject } from '../../identity/index.js';
import { planOf } from '../../plans/index.js';
import type { App } from '../../route-contract/index.js';
import type { ManagementDeps } from '../deps.js';
import { projectNameSchema, projectSchema } from '../schemas.js';
import { callerOrganizationId } from './caller.js';

// Strict: a misspelt or unknown field is a 400, never silently ignored.
const body = z.strictObject({
  name: projectNameSchema,
  network: z.enum(['mainnet', 'testnet']),
});

export function registerCreateProject(app: App, deps: ManagementDeps): void {
  app.post(
    '/v1/projects',
    {
      config: { auth: { scope: 'manage' }, cost: 'free' },
      schema: {
        summary: 'Create a project',
        description:
          'The slug comes from the name (lower-case letters, digits, hyphens). Errors: 400 INVALID_PROJECT_NAME ' +
          '(empty slug), 409 PROJECT_SLUG_TAKEN, 403 PROJECT_LIMIT_REACHED (the limit of the plan in force: the ' +
          'subscription’s while it is in force, else the tier’s).',
        tags: ['projects'],
        body,
        response: { 201: z.object({ data: projectSchema }), ...errorResponses(400, 401, 403, 404, 409, 415) },
      },
    },
    async (request, reply) => {
      const project = await createProject(deps.database, deps.clock, callerOrganizationId(request), request.body, planOf);
      return reply.code(201).send({ data: project });
    },
  );
}
