import type { App } from '../../route-contract/index.js';
import { z } from 'zod';
import { ChainInfo } from '../schemas.js';
import { contextOf, dataRoute, errors, type RestDeps } from './kit.js';

/** GET /chain: chain identity, protocol version, tip and throughput. */
export function registerGetChain(app: App, deps: RestDeps): void {
  app.get('/chain', {
    config: dataRoute,
    schema: {
      tags: ['network'],
      summary: 'Chain info',
      description: 'chainId (base58), protocol version, latest checkpoint, network transaction count; networkTps over the last 10 checkpoints.',
      response: { 200: z.object({ data: ChainInfo }), ...errors() },
    },
  }, async (request) => ({ data: await deps.services.chain.chainInfo(contextOf(deps, request)) }));
}
