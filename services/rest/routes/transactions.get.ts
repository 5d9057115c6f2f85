import type { App } from '../../route-contract/index.js';
import { z } from 'zod';
import { ApiError } from '../../core/errors.js';
import { toTransactionBlock } from '../domain/index.js';
import { digest, TransactionBlock } from '../schemas.js';
import { includeFlags, IncludeQuery } from './include.js';
import { contextOf, dataRoute, errors, type RestDeps } from './kit.js';

/** GET /transactions/{digest}: one transaction block response, cache first like the batch. */
export function registerGetTransaction(app: App, deps: RestDeps): void {
  app.get('/transactions/:digest', {
    config: dataRoute,
    schema: {
      tags: ['transactions'],
      summary: 'Transaction by digest',
      description: 'The transaction block response with the four include flags (default false), from the PostgreSQL cache when finalized and cached. 404 TRANSACTION_NOT_FOUND.',
      params: z.object({ digest }),
      querystring: IncludeQuery,
      response: { 200: z.object({ data: TransactionBlock }), ...errors(400, 404) },
    },
  }, async (request) => {
    const { transactions } = await deps.services.transactions.getMany(contextOf(deps, request), [request.params.digest]);
    const [tx] = transactions;
    if (!tx) throw new ApiError('TRANSACTION_NOT_FOUND');
    return { data: toTransactionBlock(tx, includeFlags(request.query)) };
  });
}
