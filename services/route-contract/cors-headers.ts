/**
 * The CORS header lists of the HTTP API, one source for both places that answer browsers: the
 * in-process CORS hook (services/http/cors.ts) and Envoy's cors filter (operator/xds).
 */

/** What a browser may send: the key (either form) and a JSON body. */
export const CORS_ALLOWED_HEADERS = 'x-api-key, authorization, content-type';
/** What a page may read: the limit and credit headers of the spec (Limits), the request id, Retry-After. */
export const CORS_EXPOSED_HEADERS =
  'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-Svc-Credit-Remaining, X-Svc-Credit-Replenish-Date, X-Request-Id, Retry-After';
/** Browsers cache a preflight this long (seconds); Chromium caps it at 7200. */
export const CORS_MAX_AGE_SECONDS = 600;
