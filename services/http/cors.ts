import type { FastifyReply, FastifyRequest } from 'fastify';
import { corsAnswerHeaders, CORS_ALLOWED_HEADERS, CORS_MAX_AGE_SECONDS } from '../route-contract/index.js';
import type { RouteFacts } from './route-facts.js';
import type { RouteTable } from './route-table.js';

function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/** Answers CORS for one request; true when it answered the request itself (OPTIONS). */
export type CorsStage = (request: FastifyRequest, reply: FastifyReply, route: RouteFacts) => boolean;

/**
 * CORS for the routes browsers may call (`servesCors`). The origin is reflected for any Origin
 * and credentials are never allowed: keys travel in headers, never in cookies, and a key's own
 * allowed-origins list (checked by the authenticator, 403 ORIGIN_NOT_ALLOWED) decides who gets
 * data. Hence error answers carry the CORS headers too, so a page can read why it was refused.
 *
 * Runs first in the root `onRequest` hook (root-hooks.ts): a preflight carries no key and is
 * answered here, before authentication runs.
 */
export function corsStage(routes: RouteTable): CorsStage {
  return (request, reply, route) => {
    const origin = request.headers.origin;
    if (request.method === 'OPTIONS') return answerOptions(request, reply, routes, origin);
    if (origin !== undefined && route.cors) void reply.headers(corsAnswerHeaders(origin));
    return false;
  };
}

/**
 * OPTIONS on a known path: 204 with `Allow`; on a CORS route, a preflight answer as well. A path
 * that browsers may not call gets no CORS headers, so the browser refuses the real request.
 */
function answerOptions(request: FastifyRequest, reply: FastifyReply, routes: RouteTable, origin: string | undefined): boolean {
  const path = pathOf(request.url);
  const methods = routes.methodsAt(path);
  if (methods.length === 0) return false; // unknown path: the not-found handler answers
  void reply.header('allow', routes.allowAt(path));
  const requested = request.headers['access-control-request-method'];
  if (origin !== undefined && typeof requested === 'string' && routes.corsAt(path, requested)) {
    const corsMethods = methods.filter((method) => routes.corsAt(path, method));
    void reply.headers({
      'access-control-allow-origin': origin,
      'access-control-allow-methods': corsMethods.join(', '),
      'access-control-allow-headers': CORS_ALLOWED_HEADERS,
      'access-control-max-age': String(CORS_MAX_AGE_SECONDS),
      vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
    });
  }
  void reply.code(204).send();
  return true;
}
