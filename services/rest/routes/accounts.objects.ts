import type { App } from '../../route-contract/index.js';
import { z } from 'zod';
import { AddressParams, ObjectResponse, PageQuery } from '../schemas.js';
import { contextOf, dataRoute, errors, type RestDeps } from './kit.js';

/** GET /accounts/{address}/objects: owned objects, paginated. */
export function registerGetAccountObjects(app: App, deps: RestDeps): void {
  app.get('/accounts/:address/objects', {
    config: dataRoute,
    schema: {
      tags: ['accounts'],
      summary: 'Owned objects',
      params: AddressParams,
      querystring: PageQuery,
      response: {
        200: z.object({ data: z.array(ObjectResponse), pagination: z.object({ limit: z.number(), cursor: z.string().optional(), hasNext: z.boolean() }) }),
        ...errors(400),
      },
    },
  }, async (request) => {
    const { limit, cursor } = request.query;
    const page = await deps.services.accounts.objects(contextOf(deps, request), request.params.address, limit, cursor);
    return { data: page.items, pagination: { limit, ...(page.cursor ? { cursor: page.cursor } : {}), hasNext: page.hasNext } };
  });
}
