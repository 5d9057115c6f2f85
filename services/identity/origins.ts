/**
 * Allowed-origin rules of the spec (Authentication 6). An entry is `[scheme://][*.]host[:port]`:
 * - `example.com` matches that host with any scheme and port (`example.com:3000`: any scheme, that port);
 * - `*.example.com` matches any subdomain (any depth) but not the apex; the part after `*.` has
 *   at least two labels (`*.com` would admit every site under a top-level domain);
 * - a full origin (`https://app.example.com:8443`) matches exactly; a scheme without a port
 *   matches that scheme's default port only.
 */

export interface OriginPattern {
  scheme: string | undefined;
  wildcard: boolean;
  host: string;
  port: string | undefined;
}

const PATTERN = /^(?:([a-z][a-z0-9+.-]*):\/\/)?(\*\.)?([a-z0-9-]+(?:\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])(?::(\d{1,5}))?$/;

/** Parses one entry; `undefined` when it is not of the form above. */
export function parseOriginPattern(entry: string): OriginPattern | undefined {
  const match = PATTERN.exec(entry.trim().toLowerCase());
  if (!match) return undefined;
  const [, scheme, wildcard, host, port] = match;
  if (port !== undefined && Number(port) > 65535) return undefined;
  if (wildcard !== undefined && (host!.startsWith('[') || !host!.includes('.'))) return undefined;
  return { scheme, wildcard: wildcard !== undefined, host: host!, port };
}

const DEFAULT_PORTS: Record<string, string> = { http: '80', https: '443', ws: '80', wss: '443' };

interface RequestOrigin {
  scheme: string;
  host: string;
  port: string;
}

function parseRequestOrigin(origin: string): RequestOrigin | undefined {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return undefined;
  }
  const scheme = url.protocol.replace(/:$/, '');
  if (!url.hostname) return undefined;
  return { scheme, host: url.hostname.toLowerCase(), port: url.port || DEFAULT_PORTS[scheme] || '' };
}

export function originMatches(pattern: OriginPattern, origin: string): boolean {
  const request = parseRequestOrigin(origin);
  if (!request) return false;
  const hostMatches = pattern.wildcard
    ? request.host.endsWith(`.${pattern.host}`) && request.host.length > pattern.host.length + 1
    : request.host === pattern.host;
  if (!hostMatches) return false;
  // Without a scheme, any scheme; a port that is written must still match.
  if (pattern.scheme === undefined) return pattern.port === undefined || pattern.port === request.port;
  if (pattern.scheme !== request.scheme) return false;
  const port = pattern.port ?? DEFAULT_PORTS[pattern.scheme] ?? '';
  return port === request.port;
}

/**
 * Whether a request with this `Origin` header may use a key with these allowed origins. An
 * empty list allows everything; a non-empty list requires a matching Origin header.
 */
export function isOriginAllowed(allowedOrigins: readonly string[], origin: string | undefined): boolean {
  if (allowedOrigins.length === 0) return true;
  if (!origin || origin === 'null') return false;
  return allowedOrigins.some((entry) => {
    const pattern = parseOriginPattern(entry);
    return pattern !== undefined && originMatches(pattern, origin);
  });
}

function effectivePort(pattern: OriginPattern): string | undefined {
  if (pattern.port !== undefined) return pattern.port;
  return pattern.scheme === undefined ? undefined : (DEFAULT_PORTS[pattern.scheme] ?? '');
}

/**
 * Whether every origin `inner` admits is also admitted by `outer`: a key held to `outer` may hand
 * `inner` on to a key it creates. The answer agrees with `originMatches`: a wildcard covers its
 * subdomains and narrower wildcards, a missing scheme covers every scheme, a missing port (without
 * a scheme) every port, and a scheme without a port stands for that scheme's default port.
 */
export function originPatternCovers(outer: OriginPattern, inner: OriginPattern): boolean {
  const hostCovered = outer.wildcard
    ? inner.host.endsWith(`.${outer.host}`) || (inner.wildcard && inner.host === outer.host)
    : !inner.wildcard && inner.host === outer.host;
  if (!hostCovered) return false;
  if (outer.scheme === undefined) return outer.port === undefined || effectivePort(inner) === outer.port;
  return inner.scheme === outer.scheme && effectivePort(inner) === effectivePort(outer);
}

/**
 * Whether every origin the list `inner` admits is admitted by the list `outer`. An empty list
 * admits every origin; an entry that does not parse admits none (as in `isOriginAllowed`).
 */
export function originsCover(outer: readonly string[], inner: readonly string[]): boolean {
  if (outer.length === 0) return true;
  if (inner.length === 0) return false;
  const outerPatterns = outer.flatMap((entry) => parseOriginPattern(entry) ?? []);
  return inner.every((entry) => {
    const pattern = parseOriginPattern(entry);
    return pattern === undefined || outerPatterns.some((candidate) => originPatternCovers(candidate, pattern));
  });
}
