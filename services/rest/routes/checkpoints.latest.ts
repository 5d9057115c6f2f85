import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { Checkpoint } from '../schemas.js';
import { contextOf, dataRoute, errors, typed, type RestDeps } from './kit.js';

/** GET /checkpoints/latest: the newest checkpoint. */
export function registerGetLatestCheckpoint(app: FastifyInstance, deps: RestDeps): void {
  typed(app).get('/checkpoints/latest', {
    attachValidation: true,
    config: dataRoute,
    schema: { tags: ['checkpoints'], summary: 'Latest checkpoint', response: { 200: z.object({ data: Checkpoint }), ...errors() } },
  }, async (request) => ({ data: await deps.services.chain.checkpoint(contextOf(deps, request), 'latest') }));
}
