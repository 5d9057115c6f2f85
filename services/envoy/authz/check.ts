import { ApiError, errorBody, hasQueryKey, isApiError, requestIdFrom, type Logger } from '../../core/index.js';
import { databaseUnavailableError } from '../../db/index.js';
import { IDENTITY_HEADER_NAMES, IDENTITY_HEADERS, pathOf, type Principal, type SignedIdentity } from '../../identity/index.js';
import type { RequestPipeline } from '../../pipeline/index.js';
// The module itself, not route-contract's index: that also binds requests to the upstream, which authz never loads.
import { corsAnswerHeaders, servesCors } from '../../route-contract/cors-headers.js';
import { planOf } from '../../plans/index.js';
import { encodeCheckResponse } from '../codecs/check-response.js';
import type { GatewayRoutes, MatchedRoute } from '../gateway-routes.js';
import {
  OVERWRITE_IF_EXISTS_OR_ADD,
  RPC_OK,
  RPC_PERMISSION_DENIED,
  type CheckHttpRequest,
  type CheckResponse,
  type HeaderValueOption,
} from '../envoy-types.js';

/** The request headers the check reads: the codec decodes no other (a request carries ~15). */
export const CHECKED_HEADERS = new Set([':path', ':method', ':authority', 'host', 'x-request-id', 'x-api-key', 'authorization', 'origin', 'content-type'] as const);
export type CheckedHeader = typeof CHECKED_HEADERS extends Set<infer Name> ? Name : never;
type CheckedHeaders = CheckHttpRequest<CheckedHeader>['headers'];

export interface AuthzCheckOptions {
  /** The pipeline's authenticate stage (ext_authz neither limits nor charges). */
  pipeline: RequestPipeline;
  routes: GatewayRoutes;
  /** The gateway's own mapping of host and path to the `/{network}`-prefixed path (http/networks.ts). */
  networkPath: (request: { url: string; headers: { host?: string } }) => string;
  identity: SignedIdentity;
  logger: Logger;
}

/**
 * Envoy's ext_authz check over the gateway's one access decision: the same route table, the same
 * network mapping, the same pipeline's authenticate stage. Allowed → the request goes on with signed identity
 * headers (and without any the client sent); denied → the spec's status, code and JSON body,
 * with `grpc-status` and `grpc-message` for gRPC requests.
 */
export class AuthzCheck {
  readonly #options: AuthzCheckOptions;

  constructor(options: AuthzCheckOptions) {
    this.#options = options;
  }

  /** The answer, encoded (one gRPC frame), to a check of `http` (undefined: the check carried no HTTP request). */
  async check(http: CheckHttpRequest<CheckedHeader> | undefined): Promise<Buffer> {
    if (!http) throw new ApiError('VALIDATION_FAILED', { message: 'The check request carries no HTTP request attributes.' });
    const headers = http.headers;
    const requestId = requestIdFrom(headers['x-request-id']);
    const target = http.path ?? headers[':path'] ?? '/';
    const method = (http.method ?? headers[':method'] ?? 'GET').toUpperCase();
    const url = this.#options.networkPath({ url: target, headers: { host: http.host ?? headers[':authority'] ?? headers.host } });
    const route = this.#options.routes.match(method, pathOf(url));
    try {
      // No route: the gateway answers 404 or 405 itself, with nothing to protect.
      const principal = route ? await this.#decide(route, url, headers, http.sourceIp ?? '') : undefined;
      if (!principal || !route?.network) return ALLOWED_WITHOUT_IDENTITY;
      const token = this.#options.identity.sign({
        method,
        path: pathOf(target),
        network: route.network,
        requestId,
        route: route.name,
        cost: route.declaration.cost,
        principal,
        // The ratelimit service's 429 goes out before Envoy's cors filter too, and never sees the Origin.
        corsOrigin: corsOriginOf(headers.origin, route),
      });
      return encodeCheckResponse(allow(identityHeaders(token, principal, route.network), NOTHING_REMOVED));
    } catch (error) {
      // Envoy sends a denial before its cors filter runs: the CORS headers the gateway puts on its errors come from here.
      const origin = corsOriginOf(headers.origin, route);
      const cors = origin === undefined ? NO_CORS : corsAnswerHeaders(origin);
      return encodeCheckResponse(deny(this.#asApiError(error, requestId), requestId, isGrpc(headers), cors));
    }
  }

  async #decide(route: MatchedRoute, url: string, headers: CheckedHeaders, clientIp: string): Promise<Principal | undefined> {
    const { declaration } = route;
    const queryAt = url.indexOf('?');
    // Most requests have no query: nothing to parse for them.
    const apiKeys = queryAt === -1 ? NO_KEYS : new URLSearchParams(url.slice(queryAt + 1)).getAll('api_key');
    return this.#options.pipeline.authenticate({
      rule: declaration.auth,
      queryKeyAllowed: declaration.queryKey,
      network: route.network,
      queryKeyPresent: queryAt !== -1 && hasQueryKey(url),
      headers: { xApiKey: headers['x-api-key'], authorization: headers.authorization },
      queryApiKey: apiKeys.length > 1 ? apiKeys : apiKeys[0],
      origin: headers.origin,
      clientIp,
    });
  }

  #asApiError(error: unknown, requestId: string): ApiError {
    if (isApiError(error)) return error;
    const unavailable = databaseUnavailableError(error);
    if (unavailable) {
      this.#options.logger.warn({ err: error, requestId }, 'ext_authz check: the database did not answer');
      return unavailable;
    }
    // The gateway's error handler answers an unexpected failure the same way.
    this.#options.logger.error({ err: error, requestId }, 'ext_authz check failed');
    return new ApiError('INTERNAL_ERROR', { cause: error });
  }
}

const NO_KEYS: readonly string[] = [];

/** The Origin a refusal reflects: the request's, on a route browsers may call. */
function corsOriginOf(origin: string | undefined, route: MatchedRoute | undefined): string | undefined {
  return origin !== undefined && servesCors(route?.declaration.auth) ? origin : undefined;
}

function identityHeaders(token: string, principal: Principal, network: string): HeaderValueOption[] {
  return [
    header(IDENTITY_HEADERS.token, token),
    header(IDENTITY_HEADERS.organization, principal.organization.id),
    header(IDENTITY_HEADERS.project, principal.project?.id ?? ''),
    header(IDENTITY_HEADERS.keyId, principal.keyId),
    header(IDENTITY_HEADERS.network, network),
    header(IDENTITY_HEADERS.scopes, principal.scopes.join(',')),
    header(IDENTITY_HEADERS.plan, planOf(principal.organization).id),
  ];
}

function header(key: string, value: string): HeaderValueOption {
  // Overwrite: a client's own copy of an identity header must never survive next to ours.
  return { header: { key, value }, append_action: OVERWRITE_IF_EXISTS_OR_ADD };
}

function allow(headers: HeaderValueOption[], remove: string[]): CheckResponse {
  return { status: { code: RPC_OK }, ok_response: { headers, headers_to_remove: remove } };
}

/** No header to remove (read by the encoder only, never changed). */
const NOTHING_REMOVED: string[] = [];

/** No route, or a public one: nothing to protect, every identity header removed (encoded once). */
const ALLOWED_WITHOUT_IDENTITY = encodeCheckResponse(allow([], [...IDENTITY_HEADER_NAMES]));

/** No CORS headers to add (read only). */
const NO_CORS: Record<string, string> = {};

function deny(error: ApiError, requestId: string, grpc: boolean, cors: Record<string, string>): CheckResponse {
  const headers: HeaderValueOption[] = [
    header('content-type', 'application/json; charset=utf-8'),
    header('x-request-id', requestId),
    ...Object.entries(error.headers ?? {}).map(([key, value]) => header(key, value)),
    ...Object.entries(cors).map(([key, value]) => header(key, value)),
  ];
  if (grpc) {
    headers.push(header('grpc-status', String(error.definition.grpc)), header('grpc-message', encodeURIComponent(error.message)));
  }
  return {
    status: { code: RPC_PERMISSION_DENIED, message: error.code },
    denied_response: { status: { code: error.status }, headers, body: JSON.stringify(errorBody(error, requestId)) },
  };
}

/** gRPC and gRPC-Web requests: Envoy answers them with the status in `grpc-status`. */
function isGrpc(headers: CheckedHeaders): boolean {
  return headers['content-type']?.startsWith('application/grpc') === true;
}
