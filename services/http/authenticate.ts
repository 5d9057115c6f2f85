import type { FastifyRequest } from 'fastify';
import { hasQueryKey, type Network } from '../core/index.js';
import { IDENTITY_HEADER_NAMES, IDENTITY_HEADERS, pathOf, type SignedIdentity } from '../identity/index.js';
import type { AdmissionStage } from '../metering/index.js';
import type { RequestPipeline } from '../pipeline/index.js';
import { RouteFactsBook, type RouteFacts } from './route-facts.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** `credits` when Envoy's ratelimit service already ran the limits (a trusted identity token). */
    limitStage: AdmissionStage;
  }
}

/**
 * Authenticates one request of a route (sets `principal` and `network`): done at once (returns
 * undefined, or throws the spec's ApiError) when the key's resolution is cached or the route is
 * public; otherwise a promise that settles the same way.
 */
export type AuthenticationStage = (request: FastifyRequest, route: RouteFacts) => Promise<void> | undefined;

/**
 * The fastify adapter of the pipeline's authenticate stage (services/pipeline), run by the
 * root `onRequest` hook (root-hooks.ts) so it covers every route (plugin routes included), before
 * the body is read, so an unauthenticated caller learns nothing about body validation.
 *
 * Identity headers (docs/envoy.md) are taken off every request first. With `trusted` (Envoy in
 * front) a token that verifies for this method, path and network stands for the caller, whose
 * limits Envoy's ratelimit service already ran; any other token is ignored and the key is checked
 * here, exactly as without Envoy.
 */
export function authenticationStage(pipeline: RequestPipeline, trusted?: SignedIdentity): AuthenticationStage {
  return function authenticate(request, route) {
    const token = takeIdentityHeaders(request);
    // No route matched: the not-found handler answers 404, with nothing to protect.
    if (route.url === undefined) return;
    const { auth, queryKey } = route.config;
    const network = route.network;
    if (network) request.network = network;
    if (trusted && token !== undefined && auth !== undefined && auth !== 'none') {
      const claims = trusted.verify(token, { method: request.method, path: pathOf(request.originalUrl) });
      if (claims && claims.network === network) {
        request.principal = claims.principal;
        request.limitStage = 'credits';
        return;
      }
    }
    const query = request.query as Record<string, unknown> | undefined;
    const decided = pipeline.authenticate({
      rule: auth,
      queryKeyAllowed: queryKey === true,
      network,
      queryKeyPresent: hasQueryKey(request.url),
      headers: { xApiKey: request.headers['x-api-key'], authorization: request.headers.authorization },
      queryApiKey: queryKey === true ? query?.['api_key'] : undefined,
      origin: request.headers.origin,
      clientIp: request.ip,
    });
    if (decided instanceof Promise) {
      return decided.then((principal) => {
        request.principal = principal;
      });
    }
    request.principal = decided;
    return undefined;
  };
}

/** The stage as a hook of its own, reading the route from the request (tests call it with requests as fastify hands them over). */
export function authenticationHook(pipeline: RequestPipeline, networks: readonly Network[], trusted?: SignedIdentity) {
  const routes = new RouteFactsBook(networks);
  const stage = authenticationStage(pipeline, trusted);
  return async (request: FastifyRequest): Promise<void> => stage(request, routes.of(request));
}

/** Removes every identity header from the request; returns the token if there was one. */
function takeIdentityHeaders(request: FastifyRequest): string | undefined {
  const headers = request.headers;
  const token = headers[IDENTITY_HEADERS.token];
  // `delete` is a runtime call in V8 even for a missing key; reads are inline-cached, and the
  // headers are nearly always absent (docs/benchmarks.md, "HTTP layer").
  for (const name of IDENTITY_HEADER_NAMES) if (headers[name] !== undefined) delete headers[name];
  return typeof token === 'string' ? token : undefined;
}
