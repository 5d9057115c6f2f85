import { ApiError, type Network } from '../core/index.js';
import { AccessRefusal, type AccessRefusalCode } from './access-refusal.js';
import type { AccessRequest, Authenticator } from './authenticator.js';
import { readApiKey, type CredentialSources } from './credentials.js';
import type { Principal } from './principal.js';
import type { Scope } from './scopes.js';

/** What a route declares about its callers (the route contract's `auth`, as data). */
export type AccessRule = { scope: Scope } | 'key' | 'none';

/** One request as the access decision sees it, whatever transport carried it. */
export interface RequestAccess {
  /** The matched route's declaration; `undefined` when the route declares none. */
  rule: AccessRule | undefined;
  /** Whether the route accepts the key in the `api_key` query parameter. */
  queryKeyAllowed: boolean;
  /** The route's network (its `/{network}` prefix, after the host was mapped to one). */
  network: Network | undefined;
  /** Whether the URL carries an `api_key` parameter (any spelling). */
  queryKeyPresent: boolean;
  headers: Pick<CredentialSources, 'xApiKey' | 'authorization'>;
  /** The `api_key` query value, read only when the route allows it. */
  queryApiKey: unknown;
  origin: string | undefined;
  /** The client's address as the transport trusts it (AccessRequest.clientIp). */
  clientIp: string;
}

/**
 * The gateway's access decision, for every adapter (the fastify hook, Envoy's ext_authz): the
 * caller of a route, or the spec's ApiError. `undefined` for public routes. Decided at once
 * (returned or thrown) when it needs no lookup, a promise otherwise. It fails closed:
 * - a route that declares no rule is refused (401 without a valid key, 403 with one);
 * - a route outside the `/{network}` scopes cannot check a key's network, so only `'none'` works;
 * - the `api_key` query parameter (any spelling) is refused on network routes unless the route
 *   opts in: the spec allows it on the HTTP gateways only.
 */
export function decideAccess(authenticator: Authenticator, access: RequestAccess): Principal | undefined | Promise<Principal | undefined> {
  const { rule, network } = access;
  if (network && !access.queryKeyAllowed && access.queryKeyPresent) {
    throw new ApiError('API_KEY_INVALID', {
      message:
        'The api_key query parameter is accepted only by the JSON-RPC, GraphQL and Warp gateways; ' +
        'send the key in the x-api-key header (or Authorization: Bearer).',
    });
  }
  if (rule === 'none') return undefined;
  const apiKey = readApiKey({
    xApiKey: access.headers.xApiKey,
    authorization: access.headers.authorization,
    queryApiKey: access.queryKeyAllowed ? access.queryApiKey : undefined,
  });
  if (rule === undefined) {
    return refusedAfterVerifying(authenticator, apiKey, access.clientIp, 'INSUFFICIENT_SCOPE', 'This route declares no access rule; no key may call it.');
  }
  if (network === undefined) {
    return refusedAfterVerifying(authenticator, apiKey, access.clientIp, 'NETWORK_MISMATCH', 'This route is served on no network; no key may call it.');
  }
  const request: AccessRequest = { network, scope: rule === 'key' ? null : rule.scope, origin: access.origin, clientIp: access.clientIp };
  return authenticator.authenticateCached(apiKey, request) ?? authenticator.authenticate(apiKey, request);
}

/** A key error first (401 without a valid key), then the refusal. */
async function refusedAfterVerifying(
  authenticator: Authenticator, apiKey: string | undefined, clientIp: string, code: AccessRefusalCode, message: string,
): Promise<never> {
  const principal = await authenticator.verify(apiKey, clientIp);
  throw new AccessRefusal(code, principal, { message });
}

/** Routes of a network live under `/{network}`; the first path segment names it. */
export function networkOfRoute(url: string | undefined, networks: readonly Network[]): Network | undefined {
  const segment = url?.split('/')[1];
  return networks.find((network) => network === segment);
}
