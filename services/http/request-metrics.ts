import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CounterSeries, HistogramSeries, Metrics } from '../core/index.js';
import type { RouteFacts } from './route-facts.js';

/** The Prometheus instruments of the HTTP adapter (services/core/metrics.ts). */
export type RequestInstruments = Pick<Metrics, 'requests' | 'requestDuration'>;

export { UNMATCHED_ROUTE } from './route-facts.js';

/** Counts one answered request and its duration. */
export type RequestRecorder = (request: FastifyRequest, reply: FastifyReply, route: RouteFacts) => void;

interface RouteSeries {
  counted: CounterSeries;
  timed: HistogramSeries;
}

/**
 * Counts every answered request and its duration by protocol, route pattern, method and status
 * (see `RouteFacts.protocol`). Labels stay bounded: patterns, never URLs; methods are the ones
 * Node's parser accepts. Each label set is resolved into its series once (series-metrics.ts);
 * a request then costs a map lookup and a few additions.
 */
export function requestRecorder(instruments: RequestInstruments): RequestRecorder {
  // By route, method and status, without building a key string per request.
  const byRoute = new WeakMap<RouteFacts, Map<string, Map<number, RouteSeries>>>();
  return (request, reply, route) => {
    const method = request.method;
    const status = reply.statusCode;
    let byMethod = byRoute.get(route);
    if (byMethod === undefined) byRoute.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (byStatus === undefined) byMethod.set(method, (byStatus = new Map()));
    let series = byStatus.get(status);
    if (series === undefined) {
      const timed = { protocol: route.protocol, route: route.metricRoute, method };
      series = { counted: instruments.requests.series({ ...timed, status: String(status) }), timed: instruments.requestDuration.series(timed) };
      byStatus.set(status, series);
    }
    series.counted.inc();
    series.timed.observe(reply.elapsedTime / 1000);
  };
}
