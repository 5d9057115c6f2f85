import type { App } from '../../route-contract/index.js';
import { z } from 'zod';
import { TransactionStats } from '../schemas.js';
import { contextOf, dataRoute, errors, type RestDeps } from './kit.js';

/** GET /transactions/stats: success and error counts over the latest checkpoints. */
export function registerGetTransactionStats(app: App, deps: RestDeps): void {
  app.get('/transactions/stats', {
    config: dataRoute,
    schema: {
      tags: ['transactions'],
      summary: 'Transaction status counts',
      description: 'Counts over the transactions of the most recent checkpoints (default 20, SUIGW_REST_STATS_CHECKPOINTS).',
      response: { 200: z.object({ data: TransactionStats }), ...errors() },
    },
  }, async (request) => ({ data: await deps.services.transactions.stats(contextOf(deps, request)) }));
}
