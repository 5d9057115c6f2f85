import { z } from 'zod';
import { errorResponses } from '../../core/index.js';
import type { App } from '../../route-contract/index.js';
import { getStream, listStreams } from '../definitions/store.js';
import { owner, publicStream } from './caller.js';
import type { StreamDefinitionDeps } from './deps.js';
import { streamIdSchema, streamSchema } from './schemas.js';

export function registerReadStreams(app: App, deps: StreamDefinitionDeps): void {
  app.get(
    '/v1/streams',
    {
      config: { auth: { scope: 'manage' }, cost: 'free' },
      schema: {
        summary: 'List Warp streams',
        description: 'The organization’s streams on the key’s network, oldest first.',
        tags: ['streams'],
        response: { 200: z.object({ data: z.array(streamSchema) }), ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => ({ data: (await listStreams(deps.database, owner(request))).map(publicStream) }),
  );
  app.get(
    '/v1/streams/:id',
    {
      config: { auth: { scope: 'manage' }, cost: 'free' },
      schema: {
        summary: 'Get a Warp stream',
        description: 'Errors: 404 STREAM_NOT_FOUND.',
        tags: ['streams'],
        params: z.object({ id: streamIdSchema }),
        response: { 200: z.object({ data: streamSchema }), ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => ({ data: publicStream(await getStream(deps.database, owner(request), request.params.id)) }),
  );
}
