import { z } from 'zod';
import { errorResponses } from '../../core/index.js';
import { planOf } from '../../plans/index.js';
import type { App } from '../../route-contract/index.js';
import { FILTER_SCHEMAS } from '../definitions/filters.js';
import { createStream } from '../definitions/store.js';
import { caller, owner, publicStream } from './caller.js';
import type { StreamDefinitionDeps } from './deps.js';
import { createdStreamSchema, streamNameSchema } from './schemas.js';

// One strict object per type: the filters must be those of the type, and nothing else is accepted.
const body = z.discriminatedUnion('type', [
  z.strictObject({ name: streamNameSchema, type: z.literal('event'), filters: FILTER_SCHEMAS.event }),
  z.strictObject({ name: streamNameSchema, type: z.literal('address'), filters: FILTER_SCHEMAS.address }),
  z.strictObject({ name: streamNameSchema, type: z.literal('coin'), filters: FILTER_SCHEMAS.coin }),
  z.strictObject({ name: streamNameSchema, type: z.literal('object'), filters: FILTER_SCHEMAS.object }),
]);


export function registerCreateStream(app: App, deps: StreamDefinitionDeps): void {
  app.post(
    '/v1/streams',
    {
      config: { auth: { scope: 'manage' }, cost: 'free' },
      schema: {
        summary: 'Create a Warp stream',
        description:
          'A stream of one type (event, address, coin, object) with the filters of that type, on the key’s network. ' +
          'Errors: 400 VALIDATION_FAILED (unknown type, filters not those of the type, malformed Move type or address), ' +
          '403 STREAM_LIMIT_REACHED (plan limit). ' +
          'The stream applies to every checkpoint from `fromCheckpoint` on, so to anything executed after this answer.',
        tags: ['streams'],
        body,
        response: { 201: z.object({ data: createdStreamSchema }), ...errorResponses(400, 401, 403, 404, 415) },
      },
    },
    async (request, reply) => {
      const principal = caller(request);
      const { organizationId, network } = owner(request);
      const { name, ...filter } = request.body;
      const { stream, fromCheckpoint } = await createStream(deps.database, deps.clock, {
        ...filter, organizationId, network, name, limit: planOf(principal.organization).streams,
      });
      return reply.code(201).send({ data: { ...publicStream(stream), fromCheckpoint } });
    },
  );
}
