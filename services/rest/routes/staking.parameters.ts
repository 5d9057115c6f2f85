import type { App } from '../../route-contract/index.js';
import { z } from 'zod';
import { StakingParameters } from '../schemas.js';
import { contextOf, dataRoute, errors, type RestDeps } from './kit.js';

/** GET /staking/parameters: the validator set's parameters from the system state. */
export function registerGetStakingParameters(app: App, deps: RestDeps): void {
  app.get('/staking/parameters', {
    config: dataRoute,
    schema: { tags: ['staking'], summary: 'Staking parameters', response: { 200: z.object({ data: StakingParameters }), ...errors() } },
  }, async (request) => ({ data: await deps.services.chain.stakingParameters(contextOf(deps, request)) }));
}
