import type { App } from '../../route-contract/index.js';
import { z } from 'zod';
import { NameAvailability } from '../schemas.js';
import { NameParam } from './names.resolve.js';
import { contextOf, dataRoute, errors, type RestDeps } from './kit.js';

/** GET /names/{name}/availability: can the name be registered? */
export function registerGetNameAvailability(app: App, deps: RestDeps): void {
  app.get('/names/:name/availability', {
    config: dataRoute,
    schema: {
      tags: ['names'],
      summary: 'Name availability',
      description: 'registered: a record exists; available: no record, or its registration has expired.',
      params: z.object({ name: NameParam }),
      response: { 200: z.object({ data: NameAvailability }), ...errors(400) },
    },
  }, async (request) => ({ data: await deps.services.names.availability(contextOf(deps, request), request.params.name) }));
}
