import type { FastifyRequest } from 'fastify';
import type { App } from '../../route-contract/index.js';
import { z } from 'zod';
import { NameAvailability } from '../schemas.js';
import { NameParam } from './names.resolve.js';
import { contextOf, dataRoute, errors, type RestDeps } from './kit.js';

/**
 * The name whose path segment is the reverse route's: `reverse` is a valid SuiNS label, but
 * `/names/reverse/availability` matches `/names/reverse/:address` first (a static segment beats a
 * parameter), which refused `availability` as an address. A static route of its own wins back.
 */
const REVERSE = 'reverse';

/** GET /names/{name}/availability: can the name be registered? */
export function registerGetNameAvailability(app: App, deps: RestDeps): void {
  const availability = async (request: FastifyRequest, name: string) => ({ data: await deps.services.names.availability(contextOf(deps, request), name) });
  const response = { 200: z.object({ data: NameAvailability }), ...errors(400) };
  app.get('/names/:name/availability', {
    config: dataRoute,
    schema: {
      tags: ['names'],
      summary: 'Name availability',
      description: 'registered: a record exists; available: no record, or its registration has expired.',
      params: z.object({ name: NameParam }),
      response,
    },
  }, async (request) => availability(request, request.params.name));
  // Documented by the route above (name `reverse`); hidden so the document lists one path.
  app.get(`/names/${REVERSE}/availability`, { config: dataRoute, schema: { hide: true, response } }, async (request) => availability(request, REVERSE));
}
