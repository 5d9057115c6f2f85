import type { App } from '../../route-contract/index.js';
import { z } from 'zod';
import { NetworkStats } from '../schemas.js';
import { contextOf, dataRoute, errors, type RestDeps } from './kit.js';

/** GET /network/stats: validators, stake, checkpoints, transactions, epoch. */
export function registerGetNetworkStats(app: App, deps: RestDeps): void {
  app.get('/network/stats', {
    config: dataRoute,
    schema: { tags: ['network'], summary: 'Network statistics', response: { 200: z.object({ data: NetworkStats }), ...errors() } },
  }, async (request) => ({ data: await deps.services.chain.networkStats(contextOf(deps, request)) }));
}
