import type { App } from '../../route-contract/index.js';
import { z } from 'zod';
import { address, SuiObject } from '../schemas.js';
import { contextOf, dataRoute, errors, type RestDeps } from './kit.js';

/** GET /objects/{id}: one object at its latest version. */
export function registerGetObject(app: App, deps: RestDeps): void {
  app.get('/objects/:id', {
    config: dataRoute,
    schema: {
      tags: ['objects'],
      summary: 'Object by id',
      description: 'Latest version with owner, type (full 64-hex addresses), storage rebate and the Move value as JSON in `content`. 404 OBJECT_NOT_FOUND for unknown, deleted or wrapped objects.',
      params: z.object({ id: address }),
      response: { 200: z.object({ data: SuiObject }), ...errors(400, 404) },
    },
  }, async (request) => ({ data: await deps.services.objects.object(contextOf(deps, request), request.params.id) }));
}
