import type { App } from '../../route-contract/index.js';
import { z } from 'zod';
import { ActivityItem, AddressParams, cursor, limit, stringBoolean, TransactionBlock } from '../schemas.js';
import { includeAll } from '../domain/index.js';
import { contextOf, dataRoute, errors, type RestDeps } from './kit.js';

const Query = z.object({
  limit: limit(100),
  cursor,
  format: z.enum(['raw', 'activity']).default('raw'),
  includeReceived: stringBoolean.optional().meta({ description: 'default false for raw, true for activity' }),
});

/** GET /accounts/{address}/transactions: newest first, raw blocks or activity items. */
export function registerGetAccountTransactions(app: App, deps: RestDeps): void {
  app.get('/accounts/:address/transactions', {
    config: dataRoute,
    schema: {
      tags: ['accounts'],
      summary: 'Account transactions',
      description: 'Newest first. includeReceived=false: transactions the account sent; true: every transaction that affected it. format=activity derives type (sent/received), amount, coinType and counterparty from balance changes.',
      params: AddressParams,
      querystring: Query,
      response: {
        200: z.object({
          data: z.union([z.array(TransactionBlock), z.array(ActivityItem)]),
          pagination: z.object({ limit: z.number(), cursor: z.string().optional(), hasNext: z.boolean() }),
        }),
        ...errors(400),
      },
    },
  }, async (request) => {
    const { address } = request.params;
    const { limit: pageSize, cursor: after, format } = request.query;
    const includeReceived = request.query.includeReceived ?? format === 'activity';
    const query = {
      limit: pageSize,
      cursor: after,
      orderBy: 'desc' as const,
      ...(includeReceived ? { affectedAddress: address } : { sender: address }),
    };
    const ctx = contextOf(deps, request);
    const page = format === 'activity'
      ? await deps.services.transactions.listActivity(ctx, address, query)
      : await deps.services.transactions.listBlocks(ctx, `account-transactions`, query, includeAll);
    return { data: page.items, pagination: { limit: pageSize, ...(page.cursor ? { cursor: page.cursor } : {}), hasNext: page.hasNext } };
  });
}
