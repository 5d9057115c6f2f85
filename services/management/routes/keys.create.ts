import { z } from 'zod';
import { errorResponses } from '../../core/index.js';
import { createKey } from '../../identity/index.js';
import type { App } from '../../route-contract/index.js';
import type { ManagementDeps } from '../deps.js';
import { allowedOriginsInputSchema, createdKeySchema, idSchema, keyNameSchema, rateLimitInputSchema, scopesInputSchema } from '../schemas.js';
import { keyCreator } from './caller.js';
import { caller } from '../../route-contract/index.js';

// Strict: a misspelt or unknown field is a 400, never silently ignored.
const body = z.strictObject({
  name: keyNameSchema,
  projectId: idSchema,
  scopes: scopesInputSchema.optional().meta({ description: "Default ['data']; only scopes the calling key holds." }),
  expiresInDays: z.number().int().min(1).max(365).optional().meta({
    description: 'Lifetime in days, 1 to 365, default 30; never past the calling key’s own expiry.',
  }),
  allowedOrigins: allowedOriginsInputSchema.optional().meta({
    description: 'Entries `[scheme://][*.]host[:port]`; empty: any origin. Default and bound: the calling key’s list.',
  }),
  rateLimit: rateLimitInputSchema.optional().meta({
    description: 'Caps not named are the calling key’s; a cap the calling key has may only be lowered.',
  }),
});

export function registerCreateKey(app: App, deps: ManagementDeps): void {
  app.post(
    '/v1/keys',
    {
      config: { auth: { scope: 'manage' }, cost: 'free' },
      schema: {
        summary: 'Create an API key',
        description:
          'The secret (`apiKey`) appears in this response only. The new key is never less restricted than the ' +
          'calling key: the caller’s allowed origins and rate caps are inherited when not named, and may only be ' +
          'narrowed. Errors: 400 INVALID_SCOPES, 403 SCOPE_ESCALATION (scopes the caller lacks, origins beyond ' +
          'the caller’s, a cap above or without the caller’s), 404 PROJECT_NOT_FOUND, 403 KEY_LIMIT_REACHED (50 enabled keys).',
        tags: ['keys'],
        body,
        response: { 201: z.object({ data: createdKeySchema }), ...errorResponses(400, 401, 403, 404, 415) },
      },
    },
    async (request, reply) => {
      const principal = caller(request);
      const created = await createKey(deps.database, deps.clock, keyCreator(principal), {
        organizationId: principal.organization.id,
        ...request.body,
      });
      deps.identityChanged({ created: true });
      return reply.code(201).send({ data: created });
    },
  );
}
