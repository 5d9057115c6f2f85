import type { App } from '../../route-contract/index.js';
import { z } from 'zod';
import { address, cursor, limit, TransactionBlock } from '../schemas.js';
import { includeFlags, IncludeQuery } from './include.js';
import { contextOf, dataRoute, errors, type RestDeps } from './kit.js';

const Query = IncludeQuery.extend({
  limit: limit(100),
  cursor,
  status: z.enum(['Success', 'Error']).optional(),
  sender: address.optional(),
  orderBy: z.enum(['asc', 'desc']).default('desc').meta({ description: 'by timestamp' }),
});

/** GET /transactions: the network's transactions, filtered and ordered. */
export function registerListTransactions(app: App, deps: RestDeps): void {
  app.get('/transactions', {
    config: dataRoute,
    schema: {
      tags: ['transactions'],
      summary: 'Query transactions',
      description: 'Filter by sender and status, order by time. The status filter is applied after reading, over at most 5 upstream pages per request: a page may hold fewer than `limit` items while `hasNextPage` is true.',
      querystring: Query,
      response: {
        200: z.object({ data: z.array(TransactionBlock), pagination: z.object({ limit: z.number(), cursor: z.string().optional(), hasNextPage: z.boolean() }) }),
        ...errors(400),
      },
    },
  }, async (request) => {
    const q = request.query;
    const page = await deps.services.transactions.listBlocks(contextOf(deps, request), 'transactions', {
      limit: q.limit, cursor: q.cursor, orderBy: q.orderBy,
      ...(q.sender ? { sender: q.sender } : {}), ...(q.status ? { status: q.status } : {}),
    }, includeFlags(q));
    return { data: page.items, pagination: { limit: q.limit, ...(page.cursor ? { cursor: page.cursor } : {}), hasNextPage: page.hasNext } };
  });
}
