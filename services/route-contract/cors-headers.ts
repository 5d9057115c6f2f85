import type { RouteAuth } from './types.js';

/**
 * The CORS header lists of the HTTP API, one source for the places that answer browsers: the
 * in-process CORS hook (services/http/cors.ts), Envoy's cors filter (operator/xds) and authz's
 * denials (services/envoy/authz), which Envoy sends before its cors filter runs.
 */

/**
 * What a browser may send: the key (either form), a JSON body, and the headers @mysten/sui's
 * clients add to every request themselves: `x-sui-client-protocol-version` (SuiGraphQLClient,
 * SuiGrpcClient) and the `client-*` headers of the JSON-RPC client. A header missing here makes
 * the browser refuse the preflight, so the SDK's default clients could not be used from a page.
 */
export const CORS_ALLOWED_HEADERS =
  'x-api-key, authorization, content-type, x-sui-client-protocol-version, client-sdk-type, client-sdk-version, client-request-method, client-target-api-version';
/** What a page may read: the limit and credit headers of the spec (Limits), the request id, Retry-After. */
export const CORS_EXPOSED_HEADERS =
  'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-Svc-Credit-Remaining, X-Svc-Credit-Replenish-Date, X-Request-Id, Retry-After';
/** Browsers cache a preflight this long (seconds); Chromium caps it at 7200. */
export const CORS_MAX_AGE_SECONDS = 600;

/**
 * Browsers may call the routes a web app needs (data, streams, zkLogin scopes) from any origin;
 * the per-key allowed-origins check still decides who gets an answer. Management routes (scope
 * `manage`, `auth/me`, the wallet flow) never answer cross-origin: a key that manages an
 * organization is an administrator credential and must not live in a browser (spec: Authentication 5).
 */
export function servesCors(auth: RouteAuth | undefined): boolean {
  return typeof auth === 'object' && auth.scope !== 'manage';
}

/**
 * The CORS headers of an answer, errors included (so a page can read why it was refused), to a
 * request with an Origin on a route browsers may call: the origin reflected, never credentials.
 */
export function corsAnswerHeaders(origin: string): Record<string, string> {
  return { 'access-control-allow-origin': origin, 'access-control-expose-headers': CORS_EXPOSED_HEADERS, vary: 'Origin' };
}
