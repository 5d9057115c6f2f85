import type { App } from '../../route-contract/index.js';
import { z } from 'zod';
import { Validator } from '../schemas.js';
import { contextOf, dataRoute, errors, type RestDeps } from './kit.js';

/** GET /validators: the active validator set. */
export function registerListValidators(app: App, deps: RestDeps): void {
  app.get('/validators', {
    config: dataRoute,
    schema: {
      tags: ['staking'],
      summary: 'Active validators',
      description: 'votingPower in basis points of 10,000; stakeAmount is the staking pool balance; commissionRate a 0..1 decimal string.',
      response: { 200: z.object({ data: z.array(Validator) }), ...errors() },
    },
  }, async (request) => ({ data: await deps.services.chain.validators(contextOf(deps, request)) }));
}
