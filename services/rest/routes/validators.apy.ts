import type { App } from '../../route-contract/index.js';
import { z } from 'zod';
import { ValidatorApy } from '../schemas.js';
import { contextOf, dataRoute, errors, type RestDeps } from './kit.js';

/** GET /validators/apy: staking APY per active validator, computed from pool exchange rates. */
export function registerGetValidatorApys(app: App, deps: RestDeps): void {
  app.get('/validators/apy', {
    config: dataRoute,
    schema: {
      tags: ['staking'],
      summary: 'Validator APY',
      description: 'apy = (r_now / r_then)^(epochsPerYear / (now - then)) - 1, r = SUI per pool token from the pool\'s exchange_rates table, then = 30 epochs back (or activation), epochsPerYear = 365 days / epoch length. 0 without two rates.',
      response: { 200: z.object({ data: z.array(ValidatorApy) }), ...errors() },
    },
  }, async (request) => ({ data: await deps.services.chain.validatorApys(contextOf(deps, request)) }));
}
