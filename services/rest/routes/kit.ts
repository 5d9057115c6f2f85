import type { FastifyRequest } from 'fastify';
import { errorResponses } from '../../core/index.js';
import { requestUpstream, type FieldCodes } from '../../route-contract/index.js';
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

/**
 * The request's network and its upstream, bound to the request (one budget, cancelled with the
 * client: see `requestUpstream`).
 */
export function contextOf(deps: RestDeps, request: FastifyRequest): NetworkContext {
  return { network: request.network, upstream: requestUpstream(deps.upstreams, request) };
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

export { watchRequest } from '../../route-contract/index.js';
