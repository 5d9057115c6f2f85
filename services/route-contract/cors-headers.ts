/**
 * The CORS header lists of the HTTP API, one source for both places that answer browsers: the
 * in-process CORS hook (services/http/cors.ts) and Envoy's cors filter (operator/xds).
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
