import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { NetworkStats } from '../schemas.js';
import { contextOf, dataRoute, errors, typed, type RestDeps } from './kit.js';

/** GET /network/stats: validators, stake, checkpoints, transactions, epoch. */
export function registerGetNetworkStats(app: FastifyInstance, deps: RestDeps): void {
  typed(app).get('/network/stats', {
    attachValidation: true,
    config: dataRoute,
    schema: { tags: ['network'], summary: 'Network statistics', response: { 200: z.object({ data: NetworkStats }), ...errors() } },
  }, async (request) => ({ data: await deps.services.chain.networkStats(contextOf(deps, request)) }));
}
