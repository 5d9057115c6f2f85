import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { ApiError, redactQueryKey, type Clock, type Config, type Logger } from '../core/index.js';
import type { Database } from '../db/index.js';
import type { Authenticator } from '../identity/index.js';
import type { App, Capability } from '../route-contract/index.js';
import { authenticationHook } from './authenticate.js';
import { errorHandler, notFoundHandler } from './error-handler.js';
import { registerHealth, RequestStats, type HealthCheck } from './health.js';
import { legacyRedirectTarget, networkRewriter } from './networks.js';
import { registerOpenApi } from './openapi.js';

export interface HttpAppOptions {
  config: Readonly<Config>;
  /** For `/health` (the database is always checked). */
  database: Database;
  clock: Clock;
  logger: Logger;
  /** The one authenticator of the process (owned by the caller, which starts and stops it). */
  authenticator: Authenticator;
  healthChecks: readonly HealthCheck[];
  /** Each capability's routes, registered once per network under `/{network}`. */
  capabilities: readonly Capability[];
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** One route as registered: what the start-up check and the route-table tests walk. */
export interface RegisteredRoute {
  method: string | string[];
  url: string;
  config: { auth?: unknown; queryKey?: boolean } | undefined;
}

const routeTables = new WeakMap<object, RegisteredRoute[]>();

/** Every route of an app built by `buildHttpApp`, plugin routes included. */
export function registeredRoutes(app: App): readonly RegisteredRoute[] {
  return routeTables.get(app) ?? [];
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
          url: redactQueryKey(request.url, '[redacted]'),
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
  }).withTypeProvider<ZodTypeProvider>() as unknown as App;

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler);
  // JSON only: a text/plain body is 415 UNSUPPORTED_MEDIA_TYPE, not a string.
  app.removeContentTypeParser(['text/plain']);
  // JSON bodies must be valid UTF-8: decoding leniently would turn bad bytes into U+FFFD and
  // store a name other than the one sent. The text then goes to fastify's own JSON parser.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    let text: string;
    try {
      text = STRICT_UTF8.decode(body as Buffer);
    } catch {
      done(new ApiError('INVALID_BODY', { message: 'The body is not valid UTF-8.' }), undefined);
      return;
    }
    parseJson(request, text, done);
  });
  app.decorateRequest('network', 'mainnet');
  app.decorateRequest('principal', undefined);

  // Every route declares how it is authenticated, plugin routes included; checked once all are
  // added (a plugin's own onRoute hook may declare its routes after this one has seen them).
  const routes: RegisteredRoute[] = [];
  routeTables.set(app, routes);
  app.addHook('onRoute', (route) => {
    routes.push(route as RegisteredRoute);
  });
  app.addHook('onReady', async () => {
    const undeclared = routes.filter((route) => route.config?.auth === undefined);
    if (undeclared.length > 0) {
      throw new Error(`routes declare no auth: ${undeclared.map((route) => `${String(route.method)} ${route.url}`).join(', ')}`);
    }
  });

  const stats = new RequestStats();
  app.addHook('onRequest', async (request, reply) => {
    void reply.header('x-request-id', request.id);
  });
  app.addHook('onRequest', authenticationHook(authenticator, config.networks));
  app.addHook('onResponse', async (_request, reply) => stats.record(reply.statusCode));

  await registerOpenApi(app, config);
  const healthOptions = { database, clock, stats, checks: options.healthChecks };
  registerHealth(app, healthOptions, '/health');

  for (const network of config.networks) {
    await app.register(
      async (scope: App) => {
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
