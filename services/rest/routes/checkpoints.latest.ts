import type { App } from '../../route-contract/index.js';
import { z } from 'zod';
import { Checkpoint } from '../schemas.js';
import { contextOf, dataRoute, errors, type RestDeps } from './kit.js';

/** GET /checkpoints/latest: the newest checkpoint. */
export function registerGetLatestCheckpoint(app: App, deps: RestDeps): void {
  app.get('/checkpoints/latest', {
    config: dataRoute,
    schema: { tags: ['checkpoints'], summary: 'Latest checkpoint', response: { 200: z.object({ data: Checkpoint }), ...errors() } },
  }, async (request) => ({ data: await deps.services.chain.checkpoint(contextOf(deps, request), 'latest') }));
}
