import { z } from 'zod';
import { errorResponses } from '../../core/index.js';
import type { App } from '../../route-contract/index.js';
import { deleteStream } from '../definitions/store.js';
import { owner } from './caller.js';
import type { StreamDefinitionDeps } from './deps.js';
import { streamIdSchema } from './schemas.js';

export function registerDeleteStream(app: App, deps: StreamDefinitionDeps): void {
  app.delete(
    '/v1/streams/:id',
    {
      config: { auth: { scope: 'manage' }, cost: 'free' },
      schema: {
        summary: 'Delete a Warp stream',
        description: 'The stream stops matching at once and frees its plan slot; an open connection to it closes with STREAM_NOT_FOUND within a second. Errors: 404 STREAM_NOT_FOUND.',
        tags: ['streams'],
        params: z.object({ id: streamIdSchema }),
        response: {
          200: z.object({ data: z.object({ id: z.string(), deleted: z.literal(true) }) }),
          ...errorResponses(401, 403, 404),
        },
      },
    },
    async (request) => {
      await deleteStream(deps.database, deps.clock, owner(request), request.params.id);
      return { data: { id: request.params.id, deleted: true as const } };
    },
  );
}
