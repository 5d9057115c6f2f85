import { z } from 'zod';
import { errorResponses } from '../../core/index.js';
import type { App } from '../../route-contract/index.js';
import type { CatalogDeps } from '../deps.js';
import { CATALOG_ROUTE, pageOf } from '../page.js';
import { CatalogProtocol, pagination, protocolsQuery } from '../schemas.js';

/** GET /v1/catalog/protocols: the protocols cataloged on the key's network, with their event types. */
export function registerCatalogProtocols(app: App, deps: CatalogDeps): void {
  app.get('/v1/catalog/protocols', {
    config: CATALOG_ROUTE,
    schema: {
      summary: 'List cataloged protocols',
      description: 'Protocols whose events suigw catalogs on the key\'s network, in catalog order, with their packages and event types.',
      tags: ['catalog'],
      querystring: protocolsQuery,
      response: { 200: z.object({ data: z.array(CatalogProtocol), pagination }), ...errorResponses(400, 401, 403, 429) },
    },
  }, async (request) => {
    const { limit, cursor } = request.query;
    const protocols = deps.catalog.protocols(deps.catalogNetworkOf(request.network));
    return pageOf(protocols, { kind: 'catalog-protocols', network: request.network, query: '', limit, cursor }, deps.cursors);
  });
}
