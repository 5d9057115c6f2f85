import type { App } from '../../route-contract/index.js';
import { z } from 'zod';
import { AddressParams, Delegation, DelegationSummary } from '../schemas.js';
import { contextOf, dataRoute, errors, type RestDeps } from './kit.js';

/** GET /accounts/{address}/delegations: the account's stakes (StakedSui objects). */
export function registerGetAccountDelegations(app: App, deps: RestDeps): void {
  app.get('/accounts/:address/delegations', {
    config: dataRoute,
    schema: {
      tags: ['accounts', 'staking'],
      summary: 'Stakes of an account',
      description: 'One item per StakedSui object: validator (through the staking pool), principal, activation epoch, Pending/Active. Summary: number of stakes and total principal.',
      params: AddressParams,
      response: { 200: z.object({ data: z.array(Delegation), summary: DelegationSummary }), ...errors(400) },
    },
  }, async (request) => {
    const result = await deps.services.accounts.delegations(contextOf(deps, request), request.params.address);
    return { data: result.items, summary: result.summary };
  });
}
