import type { FastifyRequest } from 'fastify';
import { ApiError, hasQueryKey, type Network } from '../core/index.js';
import { readApiKey, type Authenticator } from '../identity/index.js';

/**
 * The fastify adapter of the one authenticator, registered on the root so it covers every route
 * (plugin routes included). It reads the key, verifies it and checks network, scope and origin
 * as the route's `auth` declares. Runs in `onRequest`, before the body is read, so an
 * unauthenticated caller learns nothing about body validation. It fails closed:
 * - a route that declares no `auth` is refused (401 without a valid key, 403 with one);
 * - a route outside the `/{network}` scopes cannot check a key's network, so only `'none'` works;
 * - the `api_key` query parameter (any spelling) is refused on network routes unless the route
 *   opts in with `config.queryKey`: the spec allows it on the HTTP gateways only.
 */
export function authenticationHook(authenticator: Authenticator, networks: readonly Network[]) {
  return async function authenticate(request: FastifyRequest): Promise<void> {
    // No route matched: the not-found handler answers 404, with nothing to protect.
    if (request.is404) return;
    const { auth, queryKey } = request.routeOptions.config;
    const network = networkOfRoute(request.routeOptions.url, networks);
    if (network) request.network = network;
    if (network && queryKey !== true && hasQueryKey(request.url)) {
      throw new ApiError('API_KEY_INVALID', {
        message:
          'The api_key query parameter is accepted only by the JSON-RPC, GraphQL and Warp gateways; ' +
          'send the key in the x-api-key header (or Authorization: Bearer).',
      });
    }
    if (auth === 'none') return;
    const query = request.query as Record<string, unknown> | undefined;
    const apiKey = readApiKey({
      xApiKey: request.headers['x-api-key'],
      authorization: request.headers.authorization,
      queryApiKey: queryKey === true ? query?.['api_key'] : undefined,
    });
    if (auth === undefined) {
      await authenticator.verify(apiKey);
      throw new ApiError('INSUFFICIENT_SCOPE', { message: 'This route declares no access rule; no key may call it.' });
    }
    if (network === undefined) {
      await authenticator.verify(apiKey);
      throw new ApiError('NETWORK_MISMATCH', { message: 'This route is served on no network; no key may call it.' });
    }
    request.principal = await authenticator.authenticate(apiKey, {
      network,
      scope: auth === 'key' ? null : auth.scope,
      origin: request.headers.origin,
    });
  };
}

/** Routes of a network live under `/{network}`; the first path segment names it. */
function networkOfRoute(url: string | undefined, networks: readonly Network[]): Network | undefined {
  const segment = url?.split('/')[1];
  return networks.find((network) => network === segment);
}
