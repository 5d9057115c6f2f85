import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../core/errors.js';
import { RequestCancellation, type Upstream, type UpstreamSet } from '../upstream/index.js';

/** When each request started and how to cancel its upstream calls; set by `watchRequest`. */
const requests = new WeakMap<FastifyRequest, { startedAt: number; cancel: RequestCancellation }>();

/**
 * `onRequest` hook of the data routes (REST, JSON-RPC): notes the request's start (its upstream
 * budget counts from there) and aborts its upstream calls when the client disconnects before
 * the reply.
 */
export async function watchRequest(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  // Not an AbortController: nearly every request ends without being cancelled, and its calls
  // listen with plain hooks (see RequestCancellation).
  const cancel = new RequestCancellation();
  requests.set(request, { startedAt: Date.now(), cancel });
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) cancel.cancel();
  });
}

/**
 * Cancels the request's upstream calls for a reason of the gateway's own, the reply still to be
 * sent (a JSON-RPC batch whose answer is already over its size bound).
 */
export function cancelRequestUpstream(request: FastifyRequest): void {
  requests.get(request)?.cancel.cancel();
}

/**
 * The request's network's upstream, bound to the request: every upstream call of the request
 * shares one budget (SUIGW_UPSTREAM_DEADLINE_MS from the request's start; past it 504
 * UPSTREAM_TIMEOUT) and is cancelled if the client goes away.
 */
export function requestUpstream(upstreams: UpstreamSet, request: FastifyRequest): Upstream {
  // Set by the HTTP layer's network routing (the `/{network}` scope or the network's host).
  const network = request.network;
  const upstream = upstreams.get(network);
  if (!upstream) throw new ApiError('NETWORK_NOT_CONFIGURED', { message: `No upstream is configured for ${network}` });
  const watched = requests.get(request) ?? { startedAt: Date.now(), cancel: new RequestCancellation() };
  const budget = upstream.budget(watched.startedAt, watched.cancel, request.principal?.organization.id);
  return upstream.forRequest(budget);
}
