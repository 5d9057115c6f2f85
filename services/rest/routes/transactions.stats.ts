import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { TransactionStats } from '../schemas.js';
import { contextOf, dataRoute, errors, typed, type RestDeps } from './kit.js';

/** GET /transactions/stats: success and error counts over the latest checkpoints. */
export function registerGetTransactionStats(app: FastifyInstance, deps: RestDeps): void {
  typed(app).get('/transactions/stats', {
    attachValidation: true,
    config: dataRoute,
    schema: {
      tags: ['transactions'],
      summary: 'Transaction status counts',
      description: 'Counts over the transactions of the most recent checkpoints (default 20, SUIGW_REST_STATS_CHECKPOINTS).',
      response: { 200: z.object({ data: TransactionStats }), ...errors() },
    },
  }, async (request) => ({ data: await deps.services.transactions.stats(contextOf(deps, request)) }));
}
