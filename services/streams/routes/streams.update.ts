import { z } from 'zod';
import { errorResponses } from '../../core/index.js';
import type { App } from '../../route-contract/index.js';
import { parseFiltersOf } from '../definitions/filters.js';
import { getStream, updateStream } from '../definitions/store.js';
import { owner, publicStream } from './caller.js';
import type { StreamDefinitionDeps } from './deps.js';
import { streamIdSchema, streamNameSchema, streamSchema } from './schemas.js';

const body = z.strictObject({ name: streamNameSchema.optional(), filters: z.record(z.string(), z.unknown()).optional() });

export function registerUpdateStream(app: App, deps: StreamDefinitionDeps): void {
  app.patch(
    '/v1/streams/:id',
    {
      config: { auth: { scope: 'manage' }, cost: 'free' },
      schema: {
        summary: 'Rename a Warp stream or replace its filters',
        description:
          'The type is fixed at creation; new filters must be those of the stream’s type. ' +
          'Errors: 400 VALIDATION_FAILED, 404 STREAM_NOT_FOUND.',
        tags: ['streams'],
        params: z.object({ id: streamIdSchema }),
        body,
        response: { 200: z.object({ data: streamSchema }), ...errorResponses(400, 401, 403, 404, 415) },
      },
    },
    async (request) => {
      const who = owner(request);
      const filters = request.body.filters === undefined
        ? undefined
        : parseFiltersOf((await getStream(deps.database, who, request.params.id)).type, request.body.filters);
      const updated = await updateStream(deps.database, who, request.params.id, {
        ...(request.body.name === undefined ? {} : { name: request.body.name }),
        ...(filters === undefined ? {} : { filters }),
      });
      return { data: publicStream(updated) };
    },
  );
}
