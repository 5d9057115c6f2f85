import { z } from 'zod';
import { ApiError, errorResponses } from '../../core/index.js';
import type { App } from '../../route-contract/index.js';
import type { ZkLoginDeps } from '../deps.js';
import { audienceBody, audienceIdParams, ZkLoginAudience } from '../schemas.js';
import { caller } from '../../route-contract/index.js';

/**
 * The organization's accepted audiences (OAuth client IDs). The spec keeps them "on the
 * organization's list in the dashboard"; with no dashboard here, the manage scope edits the list.
 * Management calls: free, not metered.
 */
export function registerAudiences(app: App, deps: ZkLoginDeps): void {
  app.get('/v1/zklogin/audiences', {
    config: { auth: { scope: 'manage' }, cost: 'free' },
    schema: {
      summary: 'List accepted zkLogin audiences',
      tags: ['zklogin'],
      response: { 200: z.object({ data: z.array(ZkLoginAudience) }), ...errorResponses(401, 403) },
    },
  }, async (request) => ({ data: await deps.audiences.list(caller(request).organization.id) }));

  app.post('/v1/zklogin/audiences', {
    config: { auth: { scope: 'manage' }, cost: 'free' },
    schema: {
      summary: 'Accept a zkLogin audience',
      description: 'Adds an OAuth client ID to the list: 201 when added, 200 with the existing entry when already listed.',
      tags: ['zklogin'],
      body: audienceBody,
      response: { 200: z.object({ data: ZkLoginAudience }), 201: z.object({ data: ZkLoginAudience }), ...errorResponses(400, 401, 403, 415) },
    },
  }, async (request, reply) => {
    const { audience, created } = await deps.audiences.add(caller(request).organization.id, request.body.audience);
    return reply.code(created ? 201 : 200).send({ data: audience });
  });

  app.delete('/v1/zklogin/audiences/:id', {
    config: { auth: { scope: 'manage' }, cost: 'free' },
    schema: {
      summary: 'Stop accepting a zkLogin audience',
      description: 'Tokens for this client ID are refused from now on (403 AUDIENCE_NOT_ALLOWED). 404 NOT_FOUND when the organization has no such entry.',
      tags: ['zklogin'],
      params: audienceIdParams,
      response: { 200: z.object({ data: z.object({ id: z.string(), deleted: z.literal(true) }) }), ...errorResponses(401, 403, 404) },
    },
  }, async (request) => {
    const removed = await deps.audiences.remove(caller(request).organization.id, request.params.id);
    if (!removed) throw new ApiError('NOT_FOUND', { message: 'No such audience in this organization.' });
    return { data: { id: request.params.id, deleted: true as const } };
  });
}
