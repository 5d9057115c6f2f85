import { z } from 'zod';
import { errorResponses } from '../../core/index.js';
import { updateKey } from '../../identity/index.js';
import type { App } from '../../route-contract/index.js';
import type { ManagementDeps } from '../deps.js';
import { allowedOriginsInputSchema, idSchema, keyListItemSchema, keyNameSchema, rateLimitInputSchema, scopesInputSchema } from '../schemas.js';
import { keyCreator } from './caller.js';
import { caller } from '../../route-contract/index.js';

// Strict: a misspelt or unknown field is a 400, never silently ignored.
const body = z.strictObject({
  name: keyNameSchema.optional(),
  scopes: scopesInputSchema.optional(),
  allowedOrigins: allowedOriginsInputSchema.optional(),
  rateLimit: rateLimitInputSchema.nullable().optional().meta({ description: 'null removes both caps.' }),
});

export function registerUpdateKey(app: App, deps: ManagementDeps): void {
  app.patch(
    '/v1/keys/:id',
    {
      config: { auth: { scope: 'manage' }, cost: 'free' },
      schema: {
        summary: 'Edit an API key',
        description:
          'Not in the spec’s table (there is no dashboard here): change name, scopes, allowed origins and ' +
          'per-key / per-IP rate caps, under the rules of creation: the edited key ends with scopes the caller ' +
          'holds and is within the caller’s allowed origins and rate caps (403 SCOPE_ESCALATION otherwise, also ' +
          'when the key already exceeds them) and never outlives the calling key (its expiresAt is ' +
          'brought forward). Unknown fields are 400 VALIDATION_FAILED; a disabled key is 409 KEY_DISABLED. ' +
          'Takes effect at once on this process and on every other within seconds.',
        tags: ['keys'],
        params: z.object({ id: idSchema }),
        body,
        response: { 200: z.object({ data: keyListItemSchema }), ...errorResponses(400, 401, 403, 404, 409, 415) },
      },
    },
    async (request) => {
      const principal = caller(request);
      const updated = await updateKey(deps.database, keyCreator(principal), principal.organization.id, request.params.id, request.body);
      deps.identityChanged({ keyId: updated.id });
      return { data: updated };
    },
  );
}
