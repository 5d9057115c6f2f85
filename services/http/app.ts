import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Clock, Config, Logger } from '../core/index.js';
import type { Database } from '../db/index.js';
import type { Authenticator } from '../identity/index.js';
import type { DeclaredRouteCost, Meter } from '../metering/index.js';
import type { App, Capability } from '../route-contract/index.js';
import { authenticationHook } from './authenticate.js';
import { clientErrorHandler } from './client-errors.js';
import { registerCors } from './cors.js';
import { errorHandler, notFoundHandler } from './error-handler.js';
import { registerMetering } from './metering-hooks.js';
import { registerHealth, RequestStats, type HealthCheck } from './health.js';
import { registerLoadShedding } from './load-shedding.js';
import { legacyRedirectTarget, networkRewriter } from './networks.js';
import { registerOpenApi } from './openapi.js';
import { RouteTable } from './route-table.js';
import { serverTimeouts } from './timeouts.js';

export interface HttpAppOptions {
  config: Readonly<Config>;
  /** For `/health` (the database is always checked). */
  database: Database;
  clock: Clock;
  logger: Logger;
  /** The one authenticator of the process (owned by the caller, which starts and stops it). */
  authenticator: Authenticator;
  /** The limit and meter stages, run right after authentication (services/metering). */
  meter: Meter;
  onRouteCost?: (route: DeclaredRouteCost) => void;
  healthChecks: readonly HealthCheck[];
  /** Each capability's routes, registered once per network under `/{network}`. */
  capabilities: readonly Capability[];
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** Never log a key: the `api_key` query parameter is cut from logged URLs. */
function redactUrl(url: string): string {
  return url.replace(/([?&]api_key=)[^&]*/gi, '$1[redacted]');
}

/**
 * The HTTP gateway as an unstarted fastify instance: tests call `inject()` on it, the CLI calls
 * `listen()`. Routes live under `/{network}/v1/...` for every configured network.
 */
export async function buildHttpApp(options: HttpAppOptions): Promise<App> {
  const { config, database, clock, authenticator } = options;
  const app = Fastify({
    loggerInstance: options.logger.child({}, {
      serializers: {
        req: (request: { method: string; url: string; id: string }) => ({
          id: request.id,
          method: request.method,
          url: redactUrl(request.url),
        }),
      },
    }),
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    bodyLimit: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    rewriteUrl: networkRewriter(config),
    routerOptions: { ignoreTrailingSlash: true },
    ...serverTimeouts(config.http),
    // Errors raised before a route runs (bad percent-encoding, over-long parameters, a request
    // Node could not parse or that timed out) get the standard error body too.
    frameworkErrors: errorHandler,
    clientErrorHandler,
  }).withTypeProvider<ZodTypeProvider>() as unknown as App;

  const routes = new RouteTable();
  app.addHook('onRoute', (route) => routes.add(route));
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler(routes));
  // JSON only: a text/plain body is 415 UNSUPPORTED_MEDIA_TYPE, not a string.
  app.removeContentTypeParser(['text/plain']);
  acceptEmptyJsonWithoutBodySemantics(app);
  app.decorateRequest('network', 'mainnet');
  app.decorateRequest('principal', undefined);

  const stats = new RequestStats();
  app.addHook('onRequest', async (request, reply) => {
    void reply.header('x-request-id', request.id);
  });
  app.addHook('onResponse', async (_request, reply) => stats.record(reply.statusCode));
  // Before authentication: a preflight carries no key.
  registerCors(app, routes);
  const healthPaths = new Set(['/health', ...config.networks.map((network) => `/${network}/v1/health`)]);
  await registerLoadShedding(app, config.shedding, (request) => healthPaths.has(request.routeOptions.url ?? ''));

  await registerOpenApi(app, config);
  const healthOptions = { database, clock, stats, checks: options.healthChecks };
  registerHealth(app, healthOptions, '/health');

  for (const network of config.networks) {
    await app.register(
      async (scope: App) => {
        // Every route under a network declares how it is authenticated; none is open by accident.
        scope.addHook('onRoute', (route) => {
          if (route.config?.auth === undefined) throw new Error(`route ${route.method} ${route.url} declares no auth`);
        });
        scope.addHook('onRequest', authenticationHook(authenticator, network));
        registerMetering(scope, network, { meter: options.meter, onRouteCost: options.onRouteCost });
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

/** Methods whose requests have no defined body semantics (RFC 9110 9.3). */
const BODYLESS_METHODS = new Set(['DELETE', 'GET', 'HEAD', 'OPTIONS']);

/**
 * Clients (and some HTTP libraries) send `Content-Type: application/json` on every request, a
 * DELETE with no body included; that is no body, not invalid JSON. Other methods keep
 * 400 INVALID_BODY for an empty JSON body.
 */
function acceptEmptyJsonWithoutBodySemantics(app: App): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString();
    if (text === '' && BODYLESS_METHODS.has(request.method)) {
      done(null, undefined);
      return;
    }
    parseJson(request, text, done);
  });
}
