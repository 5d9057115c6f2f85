import type { App } from '../../route-contract/index.js';
import { z } from 'zod';
import { address, Package } from '../schemas.js';
import { contextOf, dataRoute, errors, type RestDeps } from './kit.js';

/** GET /packages/{id}: a Move package and its modules. */
export function registerGetPackage(app: App, deps: RestDeps): void {
  app.get('/packages/:id', {
    config: dataRoute,
    schema: {
      tags: ['packages'],
      summary: 'Package',
      params: z.object({ id: address }),
      response: { 200: z.object({ data: Package }), ...errors(400, 404) },
    },
  }, async (request) => ({ data: await deps.services.objects.package(contextOf(deps, request), request.params.id) }));
}
