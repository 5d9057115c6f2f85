import { performance } from 'node:perf_hooks';
import type { Metrics } from '../../core/index.js';
import { chargeStatusOf, type CallStatus } from './grpc-status.js';
import { metricOperationOf } from './metric-operation.js';

/** The request instruments the proxy records on (services/core/metrics.ts), as the HTTP adapter does. */
export type CallInstruments = Pick<Metrics, 'requests' | 'requestDuration'>;

/**
 * Counts one finished call in `suigw_requests_total` / `suigw_request_duration_seconds` with
 * protocol `grpc` (gRPC-Web included), the method's path as the route (`other` for a path no
 * known service has: labels stay bounded), method `POST`, and as status the HTTP status the
 * call's status is charged as (UNAVAILABLE 503, INTERNAL 500, the caller's REQUEST_TIMEOUT 408, ...), so one error ratio
 * covers every protocol.
 */
export function recordCall(instruments: CallInstruments, path: string, status: CallStatus, startedAt: number): void {
  const timed = { protocol: 'grpc', route: metricOperationOf(path), method: 'POST' };
  instruments.requests.series({ ...timed, status: String(chargeStatusOf(status)) }).inc();
  instruments.requestDuration.series(timed).observe((performance.now() - startedAt) / 1_000);
}
