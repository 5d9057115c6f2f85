import type { App } from '../../route-contract/index.js';
import { z } from 'zod';
import { digest, TransactionBlock } from '../schemas.js';
import { toTransactionBlock } from '../domain/index.js';
import { includeFlags, IncludeQuery } from './include.js';
import { contextOf, dataRoute, errors, type RestDeps } from './kit.js';

const Body = z.object({ digests: z.array(digest).min(1).max(100) });

/** POST /transactions/batch: up to 100 transactions by digest, cache first. */
export function registerBatchTransactions(app: App, deps: RestDeps): void {
  app.post('/transactions/batch', {
    config: dataRoute,
    schema: {
      tags: ['transactions'],
      summary: 'Transactions by digest',
      description: 'Finalized transactions are served from the gateway\'s PostgreSQL cache when present (fromDatabase), the rest from the node (fromRpc) and then cached. Missing digests are left out of `data`; found = fromDatabase + fromRpc; total counts the distinct digests asked.',
      querystring: IncludeQuery,
      body: Body,
      response: {
        200: z.object({
          data: z.array(TransactionBlock),
          summary: z.object({ total: z.number(), found: z.number(), fromDatabase: z.number(), fromRpc: z.number() }),
        }),
        ...errors(400),
      },
    },
  }, async (request) => {
    const result = await deps.services.transactions.getMany(contextOf(deps, request), request.body.digests);
    const include = includeFlags(request.query);
    return {
      data: result.transactions.map((tx) => toTransactionBlock(tx, include)),
      summary: {
        total: new Set(request.body.digests).size,
        found: result.transactions.length,
        fromDatabase: result.fromDatabase,
        fromRpc: result.fromRpc,
      },
    };
  });
}
