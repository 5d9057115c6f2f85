import type { App } from '../../route-contract/index.js';
import { z } from 'zod';
import { NameBatchRequest, NameBatchResult } from '../schemas.js';
import { contextOf, dataRoute, errors, type RestDeps } from './kit.js';

/** POST /names/batch: resolve 1 to 100 names at once. */
export function registerBatchResolveNames(app: App, deps: RestDeps): void {
  app.post('/names/batch', {
    // One upstream lookup per name (the node has no batch lookup): priced per name.
    config: { ...dataRoute, cost: { credits: 1, perItem: { field: 'names', item: 'name' } } },
    schema: {
      tags: ['names'],
      summary: 'Resolve many names',
      description: 'Body `{names}`: 1 to 100 names, each 1 to 63 characters, without the suffix. One result per name, in order; unresolvable names have address null and an error. 1 credit per name.',
      body: NameBatchRequest,
      response: { 200: z.object({ data: z.object({ results: z.array(NameBatchResult) }) }), ...errors(400) },
    },
  }, async (request) => ({ data: { results: await deps.services.names.resolveMany(contextOf(deps, request), request.body.names) } }));
}
