import type { App } from '../../route-contract/index.js';
import { z } from 'zod';
import { name, NameResolution } from '../schemas.js';
import { contextOf, dataRoute, errors, type RestDeps } from './kit.js';

export const NameParam = name.meta({ example: 'example', description: 'without the .sui suffix (a trailing .sui is accepted)' });

/** GET /names/{name}: the address a name points to. */
export function registerResolveName(app: App, deps: RestDeps): void {
  app.get('/names/:name', {
    config: dataRoute,
    schema: {
      tags: ['names'],
      summary: 'Resolve a name',
      description: '404 NAME_NOT_FOUND when the name is not registered, expired or has no target address.',
      params: z.object({ name: NameParam }),
      response: { 200: z.object({ data: NameResolution }), ...errors(400, 404) },
    },
  }, async (request) => ({ data: await deps.services.names.resolve(contextOf(deps, request), request.params.name) }));
}
