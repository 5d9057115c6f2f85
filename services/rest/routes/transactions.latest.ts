import type { App } from '../../route-contract/index.js';
import { z } from 'zod';
import { cursor, limit, TransactionBlock } from '../schemas.js';
import { includeAll } from '../domain/index.js';
import { contextOf, dataRoute, errors, type RestDeps } from './kit.js';

/** GET /transactions/latest: the network's newest transactions. */
export function registerGetLatestTransactions(app: App, deps: RestDeps): void {
  app.get('/transactions/latest', {
    config: dataRoute,
    schema: {
      tags: ['transactions'],
      summary: 'Latest transactions',
      querystring: z.object({ limit: limit(50), cursor }),
      response: {
        200: z.object({ data: z.array(TransactionBlock), pagination: z.object({ limit: z.number(), cursor: z.string().optional(), hasNextPage: z.boolean() }) }),
        ...errors(400),
      },
    },
  }, async (request) => {
    const { limit: pageSize, cursor: after } = request.query;
    const page = await deps.services.transactions.listBlocks(contextOf(deps, request), 'latest-transactions', { limit: pageSize, cursor: after, orderBy: 'desc' }, includeAll);
    return { data: page.items, pagination: { limit: pageSize, ...(page.cursor ? { cursor: page.cursor } : {}), hasNextPage: page.hasNext } };
  });
}
