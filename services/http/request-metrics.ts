import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Metrics } from '../core/index.js';
import type { RouteFacts } from './route-facts.js';

/** The Prometheus instruments of the HTTP adapter (services/core/metrics.ts). */
export type RequestInstruments = Pick<Metrics, 'requests' | 'requestDuration'>;

export { UNMATCHED_ROUTE } from './route-facts.js';

/** Counts one answered request and its duration. */
export type RequestRecorder = (request: FastifyRequest, reply: FastifyReply, route: RouteFacts) => void;

interface SeriesLabels {
  counted: { protocol: string; route: string; method: string; status: string };
  timed: { protocol: string; route: string; method: string };
}

/**
 * Counts every answered request and its duration by protocol, route pattern, method and status
 * (see `RouteFacts.protocol`). Labels stay bounded: patterns, never URLs; methods are the ones
 * Node's parser accepts. prom-client hashes the label object on every call, and a fresh object
 * per call costs about three times a reused one, so each series' labels are built once.
 */
export function requestRecorder(instruments: RequestInstruments): RequestRecorder {
  const series = new Map<string, SeriesLabels>();
  return (request, reply, route) => {
    const method = request.method;
    const status = reply.statusCode;
    const key = `${route.protocol} ${route.metricRoute} ${method} ${status}`;
    let labels = series.get(key);
    if (labels === undefined) {
      const timed = { protocol: route.protocol, route: route.metricRoute, method };
      labels = { counted: { ...timed, status: String(status) }, timed };
      series.set(key, labels);
    }
    instruments.requests.inc(labels.counted);
    instruments.requestDuration.observe(labels.timed, reply.elapsedTime / 1000);
  };
}
