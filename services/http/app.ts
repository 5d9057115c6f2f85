import Fastify, { LogController, type FastifyReply, type FastifyRequest, type RouteOptions } from 'fastify';
import { validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { ApiError, networkRewriter, PATH_PARAMETER_MAX_LENGTH, proxyTrust, redactLoggedUrl, requestIdFrom, jsonBodyIssue, type Clock, type Config, type Logger } from '../core/index.js';
import type { Database } from '../db/index.js';
import type { SignedIdentity } from '../identity/index.js';
import type { DeclaredRouteCost } from '../metering/index.js';
import type { RequestPipeline } from '../pipeline/index.js';
import type { App, Capability } from '../route-contract/index.js';
import { authenticationStage } from './authenticate.js';
import { clientErrorHandler } from './client-errors.js';
import websocket from '@fastify/websocket';
import { corsStage } from './cors.js';
import { errorHandler, notFoundHandler } from './error-handler.js';
import { bodyRefusal, registerMetering } from './metering-hooks.js';
import { addUpgradeAnswerHeaders } from './upgrade-answer-headers.js';
import { registerHealth, registerLiveness, RequestStats, type HealthCheck } from './health.js';
import { startLoadShedding } from './load-shedding.js';
import { requestRecorder, type RequestInstruments } from './request-metrics.js';
import { RouteFactsBook } from './route-facts.js';
import { registerRootHooks } from './root-hooks.js';
import { legacyRedirectTarget } from './networks.js';
import { registerOpenApi } from './openapi.js';
import { refuseBodiesWhereNoneIsTaken } from './bodyless-routes.js';
import { deferredChildLogger } from './request-logger.js';
import { responseSerializerCompiler } from './response-serializer.js';
import { RouteTable, type RegisteredRoute } from './route-table.js';
import { serverTimeouts } from './timeouts.js';

export interface HttpAppOptions {
  config: Readonly<Config>;
  /** For `/health` (the database is always checked). */
  database: Database;
  clock: Clock;
  logger: Logger;
  /** The process's request pipeline (services/pipeline; owned by the caller, which closes it). */
  pipeline: RequestPipeline;
  /** Envoy in front: verifies the identity tokens of `suigw authz` (docs/envoy.md); absent: none is trusted. */
  trustedIdentity?: SignedIdentity;
  onRouteCost?: (route: DeclaredRouteCost) => void;
  healthChecks: readonly HealthCheck[];
  /** Requests and their latency by protocol, route pattern, method and status. */
  metrics?: RequestInstruments;
  /** Each capability's routes, registered once per network under `/{network}`. */
  capabilities: readonly Capability[];
  /** `/v1/openapi.json` and `/docs` (default true); a role serving no documented API leaves them out. */
  openApi?: boolean;
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

const routeTables = new WeakMap<object, RouteTable>();

/** Every route of an app built by `buildHttpApp`, plugin routes included. */
export function registeredRoutes(app: App): readonly RegisteredRoute[] {
  return routeTables.get(app)?.registered ?? [];
}

/**
 * The HTTP gateway as an unstarted fastify instance: tests call `inject()` on it, the CLI calls
 * `listen()`. Routes live under `/{network}/v1/...` for every configured network.
 */
export async function buildHttpApp(options: HttpAppOptions): Promise<App> {
  const { config, database, clock, pipeline } = options;
  const app = Fastify({
    loggerInstance: options.logger.child({}, {
      serializers: {
        req: (request: { method: string; url: string; id: string }) => ({
          id: request.id,
          method: request.method,
          url: redactLoggedUrl(request.url, '[redacted]'),
        }),
      },
    }),
    genReqId: (request) => requestIdFrom(request.headers['x-request-id']),
    // Per-request lines cost more than anything else the gateway adds (docs/benchmarks.md,
    // Profile): only failures, slow requests and a sample are logged, by `logRequest` below.
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: deferredChildLogger,
    bodyLimit: config.bodyLimitBytes,
    // The visitor as the proxies in front report it (services/core/client-address.ts): a trust
    // function, as fastify ignores a bare hop count (it trusts no hop then).
    trustProxy: config.trustProxy === 0 ? false : proxyTrust(config.trustProxy),
    rewriteUrl: networkRewriter(config),
    // Routes compiled to code once all are registered (find-my-way's compiler mode): lookups
    // about twice as fast as walking the tree (docs/benchmarks.md, "HTTP layer").
    routerOptions: { ignoreTrailingSlash: true, compile: true, maxParamLength: PATH_PARAMETER_MAX_LENGTH },
    ...serverTimeouts(config.http),
    // Errors raised before a route runs (bad percent-encoding, over-long parameters, a request
    // Node could not parse or that timed out) get the standard error body too.
    frameworkErrors: errorHandler,
    clientErrorHandler,
    // A request that arrives while the server closes is answered by the root hook with the
    // standard error body (503 SHUTTING_DOWN), not fastify's own.
    return503OnClosing: false,
  }).withTypeProvider<ZodTypeProvider>() as unknown as App;

  // Before the plugin's own onRoute hook: a WebSocket route asked without an upgrade answers 426.
  app.addHook('onRoute', answerPlainRequestsWithUpgradeRequired);
  // WebSocket upgrades (Warp streams, JSON-RPC subscriptions) are routed once, at the root, through
  // every hook below: a second registration would route each upgrade twice.
  await app.register(websocket, { options: { maxPayload: 64 * 1024 } });
  // The 101 of an upgrade gets the headers every metered answer carries (metering-hooks.ts).
  addUpgradeAnswerHeaders(app.websocketServer);
  const routes = new RouteTable();
  routeTables.set(app, routes);
  app.addHook('onRoute', (route) => routes.add(route));
  app.addHook('onRoute', refuseBodiesWhereNoneIsTaken);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(responseSerializerCompiler);
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler(routes));
  // JSON only: a text/plain body is 415 UNSUPPORTED_MEDIA_TYPE, not a string.
  app.removeContentTypeParser(['text/plain']);
  parseJsonBodies(app);
  app.decorateRequest('network', 'mainnet');
  app.decorateRequest('principal', undefined);
  app.decorateRequest('limitStage', 'whole');

  // Every route declares how it is authenticated, plugin routes included; checked once all are
  // added (a plugin's own onRoute hook may declare its routes after this one has seen them).
  app.addHook('onReady', async () => {
    const undeclared = routes.registered.filter((route) => route.config?.auth === undefined);
    if (undeclared.length > 0) {
      throw new Error(`routes declare no auth: ${undeclared.map((route) => `${String(route.method)} ${route.url}`).join(', ')}`);
    }
  });

  const stats = new RequestStats();
  registerRootHooks(app, {
    routes: new RouteFactsBook(config.networks),
    cors: corsStage(routes),
    pressure: await startLoadShedding(app, config.shedding, options.logger),
    authenticate: authenticationStage(pipeline, options.trustedIdentity),
    stats,
    logRequest: requestLogger(config.requestLog),
    record: options.metrics ? requestRecorder(options.metrics) : undefined,
  });

  if (options.openApi !== false) await registerOpenApi(app, config);
  const healthOptions = { database, clock, stats, checks: options.healthChecks };
  registerHealth(app, healthOptions, '/health');
  registerLiveness(app);

  for (const network of config.networks) {
    await app.register(
      async (scope: App) => {
        // The limit stage runs after the root's authentication hook (services/pipeline).
        registerMetering(scope, network, { pipeline, onRouteCost: options.onRouteCost });
        registerHealth(scope, healthOptions, '/v1/health');
        for (const capability of options.capabilities) await capability(scope);
      },
      { prefix: `/${network}` },
    );
  }

  // Legacy addresses without a network (spec: Networks) go to the mainnet equivalent.
  app.all('/v1/*', { config: { auth: 'none' }, schema: { hide: true } }, async (request, reply) => {
    const proto = request.headers['x-forwarded-proto'];
    return reply.redirect(legacyRedirectTarget(config, request.url, typeof proto === 'string' ? proto : undefined), 308);
  });

  return app;
}

/**
 * Request logging, off by default: 5xx answers at error, requests slower than `slowMs` at warn
 * and a `sampleRate` share of the rest at info, each as one line with the redacted request
 * (the logger's `req` serializer), the status and the time taken.
 */
function requestLogger(settings: Config['requestLog']): (request: FastifyRequest, reply: FastifyReply) => void {
  const { slowMs, sampleRate } = settings;
  return (request, reply) => {
    const status = reply.statusCode;
    const responseTime = reply.elapsedTime;
    const level = status >= 500 ? 'error' : responseTime >= slowMs ? 'warn' : sampleRate > 0 && Math.random() < sampleRate ? 'info' : undefined;
    if (level === undefined) return;
    request.log[level]({ req: request, res: { statusCode: status }, responseTime }, 'request completed');
  };
}

/**
 * A route declared `websocket: true` gets @fastify/websocket's answer to a request that is no
 * upgrade (a plain GET, or the HEAD fastify adds): 404 with an empty body, not the standard error
 * body. Declared instead as its `wsHandler` beside a plain handler, it keeps the plugin's upgrade
 * path and answers anything else 426 UPGRADE_REQUIRED with `Upgrade: websocket`. `webSocket`
 * marks the route for the OpenAPI document (services/http/openapi.ts).
 */
function answerPlainRequestsWithUpgradeRequired(route: RouteOptions & { webSocket?: boolean }): void {
  if (route.websocket !== true) return;
  route.websocket = false;
  route.webSocket = true;
  // As the plugin does for its routes: the document shows only those that describe themselves.
  route.schema = { ...route.schema, hide: true };
  // A `websocket: true` route's handler is its WebSocket handler (socket, request).
  route.wsHandler = route.handler as unknown as typeof route.wsHandler;
  route.handler = async () => {
    throw new ApiError('UPGRADE_REQUIRED', {
      message: 'This address serves WebSocket connections only: connect with a WebSocket client (GET with Upgrade: websocket).',
      headers: { upgrade: 'websocket', connection: 'upgrade' },
    });
  };
}


const PROTOTYPE_KEY_MESSAGE = 'The body has a `__proto__` or `constructor.prototype` key, which is refused.';

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Methods whose requests have no defined body semantics (RFC 9110 9.3). */
const BODYLESS_METHODS = new Set(['DELETE', 'GET', 'HEAD', 'OPTIONS']);

/**
 * JSON bodies, parsed once by fastify's own parser after two checks:
 * - they must be valid UTF-8: decoding leniently would turn bad bytes into U+FFFD and store a
 *   name other than the one sent;
 * - clients (and some HTTP libraries) send `Content-Type: application/json` on every request, a
 *   DELETE with no body included; that is no body, not invalid JSON. Other methods keep
 *   400 INVALID_BODY for an empty JSON body.
 * Once parsed, a body holding text PostgreSQL cannot store or nesting deeper than
 * MAX_JSON_BODY_DEPTH is 400 VALIDATION_FAILED naming where (jsonBodyIssue).
 */
function parseJsonBodies(app: App): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    // A compressed body is not decompressed here (RFC 7694: 415 for an unsupported coding).
    const coding = request.headers['content-encoding'];
    if (coding !== undefined && coding.trim().toLowerCase() !== 'identity') {
      done(bodyRefusal(new ApiError('UNSUPPORTED_MEDIA_TYPE', { message: `Content-Encoding ${coding} is not supported: send the JSON body uncompressed.` })), undefined);
      return;
    }
    let text: string;
    try {
      text = STRICT_UTF8.decode(body as Buffer);
    } catch {
      done(bodyRefusal(new ApiError('INVALID_BODY', { message: 'The body is not valid UTF-8.' })), undefined);
      return;
    }
    if (text === '' && BODYLESS_METHODS.has(request.method)) {
      done(null, undefined);
      return;
    }
    parseJson(request, text, (error, parsed) => {
      // fastify's parser refuses valid JSON that would reach an object's prototype with the same
      // error as broken JSON: say which it was.
      if (error) return done(isJson(text) ? bodyRefusal(new ApiError('INVALID_BODY', { message: PROTOTYPE_KEY_MESSAGE })) : error, undefined);
      const issue = jsonBodyIssue(parsed);
      if (issue === undefined) return done(null, parsed);
      done(bodyRefusal(new ApiError('VALIDATION_FAILED', { message: issue, fields: { issues: [issue] } })), undefined);
    });
  });
}

