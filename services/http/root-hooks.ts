import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, retryAfter } from '../core/index.js';
import type { App } from '../route-contract/index.js';
import type { AuthenticationStage } from './authenticate.js';
import type { CorsStage } from './cors.js';
import type { RequestStats } from './health.js';
import type { PressureCheck } from './load-shedding.js';
import type { RequestRecorder } from './request-metrics.js';
import type { RouteFacts, RouteFactsBook } from './route-facts.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The facts of the request's route, set by the root `onRequest` hook. */
    routeFacts: RouteFacts | undefined;
  }
}

/** The stages every request passes at the root, in the order they run. */
export interface RootStages {
  routes: RouteFactsBook;
  /** First: a preflight carries no key and is answered here. */
  cors: CorsStage;
  /** Then load shedding (health checks are exempt). */
  pressure: PressureCheck;
  /** Then authentication; the network scopes' limit stage follows (services/pipeline). */
  authenticate: AuthenticationStage;
  /** When the answer is sent: `/health`'s counts, request logging, request metrics. */
  stats: RequestStats;
  logRequest: (request: FastifyRequest, reply: FastifyReply) => void;
  record: RequestRecorder | undefined;
}

/**
 * The gateway's per-request work at the root as one `onRequest` and one `onResponse` hook
 * instead of one hook per concern: each hook costs a dispatch (and an async one a promise) on
 * every request, and each concern read the route again (docs/benchmarks.md, "Per change").
 * `onRequest`: the request id header (so every answer carries it, errors included), CORS, load
 * shedding, authentication, in that order.
 */
export function registerRootHooks(app: App, stages: RootStages): void {
  const { routes, cors, pressure, authenticate, stats, logRequest, record } = stages;
  app.decorateRequest('routeFacts', undefined);
  // Shutting down (SIGTERM): a kept-alive connection whose request was in flight when the server
  // stopped listening is closed as soon as its answer is sent. Node closes only the connections
  // idle at that moment, so such a connection (Envoy's pool, any keep-alive client) otherwise held
  // the drain open for SUIGW_HTTP_KEEP_ALIVE_TIMEOUT_MS (72 s), past Kubernetes' 30 s grace period.
  // A request that arrives on such a connection meanwhile is refused before any work, uncharged.
  let closing = false;
  app.addHook('preClose', (done: () => void) => {
    closing = true;
    done();
  });
  // Callback style: with a cached key or a public route nothing here waits, and an async hook
  // would still cost a promise and a microtask per request (docs/benchmarks.md, "HTTP layer").
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => {
    const route = routes.of(request);
    request.routeFacts = route;
    void reply.header('x-request-id', request.id);
    if (closing) return done(shuttingDown(request));
    // Answered (a preflight): fastify goes on once the reply is sent, `done` must not be called.
    if (cors(request, reply, route)) return;
    // NUL, which PostgreSQL cannot store or compare, reaches params and queries only as `%00`
    // (the HTTP parser refuses a raw one); bodies are checked where they are parsed (app.ts).
    if (request.url.includes('%00')) return done(nulInUrl());
    if (!route.shedExempt) {
      const shed = pressure();
      if (shed) return done(shed);
    }
    let pending: Promise<void> | undefined;
    try {
      pending = authenticate(request, route);
    } catch (error) {
      return done(error as Error);
    }
    if (pending === undefined) return done();
    pending.then(() => done(), done);
  });
  app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    if (closing) setImmediate(() => app.server.closeIdleConnections());
    stats.record(reply.statusCode);
    logRequest(request, reply);
    // Answers sent before the root hook ran (framework errors) have no facts yet.
    record?.(request, reply, request.routeFacts ?? routes.of(request));
    done();
  });
}

/** What a request that reaches a closing server is told: another instance can take it now. */
function shuttingDown(request: FastifyRequest): ApiError {
  const { fields, headers } = retryAfter(1);
  return new ApiError('SHUTTING_DOWN', {
    message: 'This gateway process is shutting down; nothing was done. Retry the request.',
    fields,
    // HTTP/1.1 only: an HTTP/2 connection ends with the server's GOAWAY instead.
    headers: request.raw.httpVersionMajor === 1 ? { ...headers, connection: 'close' } : headers,
  });
}

function nulInUrl(): ApiError {
  const issue = 'url: must not contain NUL (%00)';
  return new ApiError('VALIDATION_FAILED', { message: issue, fields: { issues: [issue] } });
}
