import { setMaxListeners } from 'node:events';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, errorResponses } from '../../core/index.js';
import type { FieldCodes } from '../../route-contract/index.js';
import type { UpstreamMonitor, UpstreamSet } from '../../upstream/index.js';
import type {
  AccountService, ChainService, CoinService, NameService, NetworkContext, ObjectService, TransactionService,
} from '../domain/index.js';

export interface RestServices {
  accounts: AccountService;
  transactions: TransactionService;
  objects: ObjectService;
  coins: CoinService;
  chain: ChainService;
  names: NameService;
}

export interface RestDeps {
  upstreams: UpstreamSet;
  services: RestServices;
  /** The upstreams' background probes, for the health details route. */
  monitor?: UpstreamMonitor;
}

/** When each request started and how to cancel its upstream calls; set by `watchRequest`. */
const requests = new WeakMap<FastifyRequest, { startedAt: number; cancel: AbortController }>();

/**
 * `onRequest` hook of the data routes: notes the request's start (its upstream budget counts
 * from there) and aborts its upstream calls when the client disconnects before the reply.
 */
export async function watchRequest(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const cancel = new AbortController();
  // Every upstream call of the request, and its wait for a bulkhead slot, listens on this one
  // signal (a stats read makes 21 calls); the signal lives only as long as the request.
  setMaxListeners(64, cancel.signal);
  requests.set(request, { startedAt: Date.now(), cancel });
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) cancel.abort();
  });
}

/**
 * The request's network and its upstream, bound to the request: every upstream call of the
 * request shares one budget (SUIGW_UPSTREAM_DEADLINE_MS from the request's start; past it
 * 504 UPSTREAM_TIMEOUT) and is cancelled if the client goes away.
 */
export function contextOf(deps: RestDeps, request: FastifyRequest): NetworkContext {
  // Set by the HTTP layer's network routing (the `/{network}` scope or the network's host).
  const network = request.network;
  const upstream = deps.upstreams.get(network);
  if (!upstream) throw new ApiError('NETWORK_NOT_CONFIGURED', { message: `No upstream is configured for ${network}` });
  const watched = requests.get(request) ?? { startedAt: Date.now(), cancel: new AbortController() };
  const budget = upstream.budget(watched.startedAt, watched.cancel.signal, request.principal?.organization.id);
  return { network, upstream: upstream.forRequest(budget) };
}

/** Error responses a data route documents: its own, plus the upstream's 5xx (the error handler renders them). */
export function errors(...statuses: (400 | 404)[]) {
  return errorResponses(...statuses, 500, 502, 503, 504);
}

/** Where a bad input sits → the code the caller branches on (see `validationFailure`). */
const FIELD_CODES: FieldCodes = {
  address: 'INVALID_ADDRESS',
  sender: 'INVALID_ADDRESS',
  digest: 'INVALID_DIGEST',
  digests: 'INVALID_DIGEST',
  cursor: 'INVALID_CURSOR',
  id: 'INVALID_OBJECT_ID',
  ids: 'INVALID_OBJECT_ID',
  coinType: 'INVALID_COIN_TYPE',
  checkpoint: 'INVALID_CHECKPOINT',
  name: 'INVALID_NAME',
  names: 'INVALID_NAME',
};

/** Every data route needs a key of the request's network holding the `data` scope, and costs 1 credit. */
export const dataRoute = { auth: { scope: 'data' as const }, cost: 1, fieldCodes: FIELD_CODES, protocol: 'rest' as const };
