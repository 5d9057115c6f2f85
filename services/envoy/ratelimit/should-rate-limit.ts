import { errorBody, type Clock } from '../../core/index.js';
import type { SignedIdentity } from '../../identity/index.js';
import type { RouteCost } from '../../metering/index.js';
import type { RequestPipeline } from '../../pipeline/index.js';
// The module itself, not route-contract's index: that also binds requests to the upstream, which ratelimit never loads.
import { corsAnswerHeaders } from '../../route-contract/cors-headers.js';
import { encodeRateLimitResponse } from '../codecs/rate-limit-response.js';
import type { DeferredAnswer } from '../unary-grpc-server.js';
import { RLS_OK, RLS_OVER_LIMIT, UNIT_SECOND, type HeaderValue, type RateLimitRequest, type RateLimitResponse } from '../envoy-types.js';
import { readDescriptors } from './descriptors.js';

export interface ShouldRateLimitOptions {
  pipeline: RequestPipeline;
  identity: SignedIdentity;
  clock: Clock;
}

/**
 * Envoy's global rate limit as the pipeline's limit stage (`admit(…, 'limits')`): per-key
 * and per-IP caps and the organization's plan rate consumed in the shared limiter, credits
 * checked against the ledger. A refusal is answered and settled here (its charge and usage, as the
 * gateway would): OVER_LIMIT with the spec's 429 body in `raw_body` and its headers; settled only
 * as it is sent, for one past Envoy's deadline never reaches it: Envoy fails open, the service
 * behind it answers and charges that request, and billing the refusal too would charge it twice
 * (its reserved credits are given back instead). An admitted
 * request is reserved and charged by the service behind Envoy, which sets the rate-limit and
 * credit headers on its answer. Requests without a valid identity token (public routes) are
 * not limited here: the service checks such a request's key itself and runs the whole stage.
 */
export class RateLimitCheck {
  readonly #options: ShouldRateLimitOptions;

  constructor(options: ShouldRateLimitOptions) {
    this.#options = options;
  }

  /** The answer, encoded (one gRPC frame); a refusal's, made as it is sent. */
  async shouldRateLimit(request: RateLimitRequest): Promise<Buffer | DeferredAnswer> {
    const descriptors = request.descriptors ?? [];
    const values = readDescriptors(descriptors);
    const claims = this.#options.identity.verify(values.identity);
    const cost = claims?.cost as RouteCost | undefined;
    const { pipeline } = this.#options;
    // Free (management) routes pass too: the key's caps and the management allowance apply to them.
    if (!claims || cost === undefined) return allowed(descriptors.length);
    const admission = await pipeline.admit(
      { principal: claims.principal, clientIp: values.remoteAddress ?? '', network: claims.network, route: claims.route, cost },
      'limits',
    );
    const { ticket, error } = admission;
    // Metering off (SUIGW_METERING=off): nothing is limited, as in every role.
    if (!ticket) return allowed(descriptors.length);
    const org = ticket.org;
    const code = error ? RLS_OVER_LIMIT : RLS_OK;
    // Every descriptor gets the same status: one object, listed once per descriptor.
    const status = {
      code,
      current_limit: { requests_per_unit: org.limit, unit: UNIT_SECOND },
      limit_remaining: org.remaining,
      duration_until_reset: durationOf(Math.max(0, org.resetAtMs - this.#options.clock.now())),
    };
    const statuses = descriptors.map(() => status);
    if (!error) return encodeRateLimitResponse({ overall_code: RLS_OK, statuses, response_headers_to_add: NO_HEADERS });
    return {
      send: () => {
        const headers = {
          ...pipeline.settle(ticket, { kind: 'answered', status: error.status }),
          ...error.headers,
          // Envoy sends this 429 before its cors filter runs: a page reads it only with these (authz signed the Origin).
          ...(claims.corsOrigin === undefined ? undefined : corsAnswerHeaders(claims.corsOrigin)),
        };
        const response: HeaderValue[] = [
          { key: 'content-type', value: 'application/json; charset=utf-8' },
          { key: 'x-request-id', value: claims.requestId },
          ...Object.entries(headers).map(([key, value]) => ({ key, value })),
        ];
        return encodeRateLimitResponse({
          overall_code: RLS_OVER_LIMIT,
          statuses,
          response_headers_to_add: response,
          raw_body: Buffer.from(JSON.stringify(errorBody(error, claims.requestId))),
        });
      },
      drop: () => pipeline.abandon(ticket),
    };
  }
}

/** Nothing to add to an admitted request's answer (read by the encoder only, never changed). */
const NO_HEADERS: HeaderValue[] = [];

function allowedResponse(descriptors: number): RateLimitResponse {
  return { overall_code: RLS_OK, statuses: Array.from({ length: descriptors }, () => ({ code: RLS_OK })), response_headers_to_add: [] };
}

/** OK for every descriptor, nothing else: encoded once for the usual counts of descriptors (one, per DESCRIPTOR_KEYS). */
const ALLOWED = Array.from({ length: 9 }, (_, descriptors) => encodeRateLimitResponse(allowedResponse(descriptors)));

function allowed(descriptors: number): Buffer {
  return ALLOWED[descriptors] ?? encodeRateLimitResponse(allowedResponse(descriptors));
}

function durationOf(ms: number): { seconds: number; nanos: number } {
  return { seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1_000_000 };
}
