import type { FastifyRequest } from 'fastify';
import type { Network } from '../core/index.js';
import { readApiKey, type Authenticator } from '../identity/index.js';

/**
 * The fastify adapter of the one authenticator: reads the key from the request, verifies it and
 * checks network, scope and origin as the route's `auth` declares. Runs in `onRequest`, before
 * the body is read, so an unauthenticated caller learns nothing about body validation.
 */
export function authenticationHook(authenticator: Authenticator, network: Network) {
  return async function authenticate(request: FastifyRequest): Promise<void> {
    request.network = network;
    const auth = request.routeOptions.config.auth;
    if (auth === undefined || auth === 'none') return;
    const query = request.query as Record<string, unknown> | undefined;
    const apiKey = readApiKey({
      xApiKey: request.headers['x-api-key'],
      authorization: request.headers.authorization,
      queryApiKey: query?.['api_key'],
    });
    request.principal = await authenticator.authenticate(apiKey, {
      network,
      scope: auth === 'key' ? null : auth.scope,
      origin: request.headers.origin,
    });
  };
}
