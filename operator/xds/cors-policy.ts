import { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS, CORS_MAX_AGE_SECONDS } from '../../services/route-contract/index.js';
import { parseOriginPattern } from '../../services/identity/index.js';
import { ANY } from './type-urls.js';

/**
 * Envoy's CorsPolicy for a virtual host, the same answers the gateway's own CORS hook gives
 * (services/http/cors.ts): allowed and exposed headers, preflight max age, never credentials.
 * Origins are the IR's union of the keys' allowed origins, each turned into an RE2 regex that
 * accepts exactly what `originMatches` (services/identity/origins.ts) accepts; the authz service
 * still checks the key's own list (403 ORIGIN_NOT_ALLOWED), CORS only decides what a page reads.
 */

const DEFAULT_PORTS: Record<string, string> = { http: '80', https: '443', ws: '80', wss: '443' };
const ANY_SCHEME = '[a-z][a-z0-9+.-]*';
/** gRPC-Web from a browser sends these, and reads the status from these trailers-as-headers. */
const GRPC_WEB_REQUEST_HEADERS = 'x-grpc-web, x-user-agent, grpc-timeout';
const GRPC_WEB_EXPOSED_HEADERS = 'grpc-status, grpc-message';

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** One allowed-origin entry → an Envoy StringMatcher; `undefined` for entries the spec refuses. */
export function originMatcher(entry: string): { safe_regex: { regex: string } } | undefined {
  if (entry === '*') return { safe_regex: { regex: '.*' } };
  const pattern = parseOriginPattern(entry);
  if (!pattern) return undefined;
  const host = (pattern.wildcard ? '[^/:]+\\.' : '') + escapeRegex(pattern.host);
  const alternatives: string[] = [];
  if (pattern.scheme === undefined) {
    if (pattern.port === undefined) alternatives.push(`${ANY_SCHEME}://${host}(:[0-9]+)?`);
    else {
      alternatives.push(`${ANY_SCHEME}://${host}:${pattern.port}`);
      // A browser omits the default port: `example.com:443` also matches `https://example.com`.
      for (const [scheme, port] of Object.entries(DEFAULT_PORTS)) if (port === pattern.port) alternatives.push(`${scheme}://${host}`);
    }
  } else {
    const port = pattern.port ?? DEFAULT_PORTS[pattern.scheme];
    const written = port === undefined ? '' : `:${port}`;
    alternatives.push(`${escapeRegex(pattern.scheme)}://${host}${written}`);
    if (port !== undefined && port === DEFAULT_PORTS[pattern.scheme]) alternatives.push(`${escapeRegex(pattern.scheme)}://${host}`);
  }
  return { safe_regex: { regex: `^(?:${alternatives.join('|')})$` } };
}

export function corsPolicy(origins: readonly string[], grpc: boolean): Record<string, unknown> {
  const matchers = origins.map(originMatcher).filter((matcher) => matcher !== undefined);
  return {
    '@type': ANY.corsPolicy,
    allow_origin_string_match: matchers,
    allow_methods: grpc ? 'POST, OPTIONS' : 'GET, POST, PUT, PATCH, DELETE, OPTIONS',
    allow_headers: grpc ? `${CORS_ALLOWED_HEADERS}, ${GRPC_WEB_REQUEST_HEADERS}` : CORS_ALLOWED_HEADERS,
    expose_headers: grpc ? `${CORS_EXPOSED_HEADERS}, ${GRPC_WEB_EXPOSED_HEADERS}` : CORS_EXPOSED_HEADERS,
    max_age: String(CORS_MAX_AGE_SECONDS),
    allow_credentials: { value: false },
  };
}
