/**
 * Where a key travels (spec: Authentication 1-2): `x-api-key`, `Authorization: Bearer`, or the
 * `api_key` query parameter (compatibility only). The same reader serves HTTP, gRPC metadata
 * and Envoy's ext_authz check requests.
 */
export interface CredentialSources {
  xApiKey?: string | string[] | undefined;
  authorization?: string | string[] | undefined;
  queryApiKey?: unknown;
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export function readApiKey(sources: CredentialSources): string | undefined {
  const header = first(sources.xApiKey)?.trim();
  if (header) return header;
  // Repeated Authorization headers: Node keeps the first, Envoy (ext_authz's check request) joins
  // them with a comma; both paths read the first. A key never holds a comma.
  const authorization = first(sources.authorization)?.split(',', 1)[0]!.trim();
  if (authorization) {
    // Whatever follows the Bearer scheme is the key as sent: `Bearer a b` is an invalid key, not a missing one.
    const match = /^Bearer\s+(.+)$/i.exec(authorization);
    if (match) return match[1]!.trim();
  }
  const query = Array.isArray(sources.queryApiKey) ? sources.queryApiKey[0] : sources.queryApiKey;
  if (typeof query === 'string' && query.trim() !== '') return query.trim();
  return undefined;
}
