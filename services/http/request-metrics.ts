import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Metrics, Network } from '../core/index.js';
import type { App, RouteProtocol } from '../route-contract/index.js';

/** The Prometheus instruments of the HTTP adapter (services/core/metrics.ts). */
export type RequestInstruments = Pick<Metrics, 'requests' | 'requestDuration'>;

/** The `route` label of a request no route matched (404, CORS preflights): never the raw URL. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * Counts every answered request and its duration by protocol, route pattern, method and status.
 * The protocol is the route's `protocol` config (REST data routes: `rest`); otherwise a route
 * under a network is `management` (or `health`), a root route `health` or `docs`; an unmatched
 * request is `none`. Labels stay bounded: patterns, never URLs.
 */
export function registerRequestMetrics(app: App, instruments: RequestInstruments, networks: readonly Network[]): void {
  const networkPrefixes = networks.map((network) => `/${network}/`);
  const protocolOf = (request: FastifyRequest): RouteProtocol | 'none' => {
    const route = request.routeOptions.url;
    if (route === undefined) return 'none';
    if (request.routeOptions.config.protocol) return request.routeOptions.config.protocol;
    if (route === '/health' || route.endsWith('/v1/health')) return 'health';
    return networkPrefixes.some((prefix) => route.startsWith(prefix)) ? 'management' : 'docs';
  };
  app.addHook('onResponse', async (request: FastifyRequest, reply: FastifyReply) => {
    const labels = { protocol: protocolOf(request), route: request.routeOptions.url ?? UNMATCHED_ROUTE, method: request.method };
    instruments.requests.inc({ ...labels, status: String(reply.statusCode) });
    instruments.requestDuration.observe(labels, reply.elapsedTime / 1000);
  });
}
