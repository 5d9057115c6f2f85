import type { App } from '../../route-contract/index.js';
import { z } from 'zod';
import { address, ObjectResponse } from '../schemas.js';
import { contextOf, dataRoute, errors, type RestDeps } from './kit.js';

/** POST /objects/batch: up to 50 objects by id, each an object response. */
export function registerBatchObjects(app: App, deps: RestDeps): void {
  app.post('/objects/batch', {
    config: dataRoute,
    schema: {
      tags: ['objects'],
      summary: 'Objects by id',
      description: 'Body `{ids: [objectId]}`, 1 to 50 ids. `data` has one object response per id in the order given: `{data: Object}` or `{error}` when the object does not exist.',
      body: z.object({ ids: z.array(address).min(1).max(50) }),
      response: { 200: z.object({ data: z.array(ObjectResponse) }), ...errors(400) },
    },
  }, async (request) => ({ data: await deps.services.objects.objects(contextOf(deps, request), request.body.ids) }));
}
