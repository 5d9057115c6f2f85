import type { App } from '../../route-contract/index.js';
import { z } from 'zod';
import { address, ReverseResolution } from '../schemas.js';
import { contextOf, dataRoute, errors, type RestDeps } from './kit.js';

/** GET /names/reverse/{address}: the address's default name. */
export function registerReverseResolveName(app: App, deps: RestDeps): void {
  app.get('/names/reverse/:address', {
    config: dataRoute,
    schema: {
      tags: ['names'],
      summary: 'Reverse resolve',
      description: '`name` is null when the address has no default name.',
      params: z.object({ address }),
      response: { 200: z.object({ data: ReverseResolution }), ...errors(400) },
    },
  }, async (request) => ({ data: await deps.services.names.reverse(contextOf(deps, request), request.params.address) }));
}
