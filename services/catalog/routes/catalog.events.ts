import { z } from 'zod';
import { ApiError, errorResponses } from '../../core/index.js';
import type { App } from '../../route-contract/index.js';
import type { CatalogDeps } from '../deps.js';
import { CATALOG_ROUTE, pageOf } from '../page.js';
import { CatalogEvent, eventsQuery, pagination } from '../schemas.js';

/** GET /v1/catalog/events: cataloged event types with field schemas, by protocol and/or package. */
export function registerCatalogEvents(app: App, deps: CatalogDeps): void {
  app.get('/v1/catalog/events', {
    config: CATALOG_ROUTE,
    schema: {
      summary: 'List cataloged event types',
      description:
        'Event types cataloged on the key\'s network with their Move layout and a JSON Schema per field. ' +
        'Each `type` can be used as is in a Warp stream\'s `filters.eventTypes`; `fields` names what `filters.fields` can compare.',
      tags: ['catalog'],
      querystring: eventsQuery,
      response: { 200: z.object({ data: z.array(CatalogEvent), pagination }), ...errorResponses(400, 401, 403, 404, 429) },
    },
  }, async (request) => {
    const { limit, cursor, protocol, package: packageId } = request.query;
    const network = deps.catalogNetworkOf(request.network);
    if (protocol !== undefined && !deps.catalog.hasProtocol(network, protocol)) {
      throw new ApiError('PROTOCOL_NOT_FOUND', { message: `No protocol '${protocol}' is cataloged on ${request.network}` });
    }
    const events = deps.catalog.events(network, { protocol, packageId });
    return pageOf(events, { kind: 'catalog-events', network: request.network, query: `${protocol ?? ''}|${packageId ?? ''}`, limit, cursor }, deps.cursors);
  });
}
