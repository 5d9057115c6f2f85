import type { App } from '../../route-contract/index.js';
import { z } from 'zod';
import { Account, AddressParams } from '../schemas.js';
import { contextOf, dataRoute, errors, type RestDeps } from './kit.js';

/** GET /accounts/{address}: the account summary; 404 when the chain knows nothing of the address. */
export function registerGetAccount(app: App, deps: RestDeps): void {
  app.get('/accounts/:address', {
    config: dataRoute,
    schema: {
      tags: ['accounts'],
      summary: 'Account summary',
      description: 'Native balance (base units), USD value when a price is known, owned object count (left out above 5,000), transaction count (left out above 50), first and last activity. Unknown account (no balance, no object, no transaction) → 404 ACCOUNT_NOT_FOUND.',
      params: AddressParams,
      response: { 200: z.object({ data: Account }), ...errors(400, 404) },
    },
  }, async (request) => ({ data: await deps.services.accounts.account(contextOf(deps, request), request.params.address) }));
}
