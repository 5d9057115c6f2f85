import type { App } from '../../route-contract/index.js';
import { z } from 'zod';
import { AddressParams, Balance } from '../schemas.js';
import { contextOf, dataRoute, errors, type RestDeps } from './kit.js';

/** GET /accounts/{address}/balance: every coin balance of the account. */
export function registerGetAccountBalance(app: App, deps: RestDeps): void {
  app.get('/accounts/:address/balance', {
    config: dataRoute,
    schema: {
      tags: ['accounts'],
      summary: 'Coin balances',
      description: 'One item per coin type. Amounts are base-unit strings; `decimals` comes from coin metadata, or is 0 when the coin has none (the spec\'s fallback).',
      params: AddressParams,
      response: { 200: z.object({ data: z.array(Balance) }), ...errors(400, 404) },
    },
  }, async (request) => ({ data: await deps.services.accounts.balances(contextOf(deps, request), request.params.address) }));
}
