import { parseArgs } from 'node:util';
import { bindPort, Metrics, networkRewriter } from '../core/index.js';
import { AuthzCheck, GatewayRoutes, RateLimitCheck, startEnvoyServices } from '../envoy/index.js';
import { openPipeline } from '../pipeline/index.js';
import { signedIdentityOf } from './identity-tokens.js';
import { routeTableFromWorker } from './route-table.js';
import { onShutdown, openRuntime, readConfig, requireSecret } from './runtime.js';
import { serveRoleMetrics } from './workers.js';

/** Default ports (docs/envoy.md); `--port` overrides, `HOST` is shared with the gateway. */
export const AUTHZ_DEFAULT_PORT = 9001;
export const RATELIMIT_DEFAULT_PORT = 9002;

function portOption(argv: string[], fallback: number): number {
  const { values } = parseArgs({ args: argv, options: { port: { type: 'string' } }, strict: true });
  if (values.port === undefined) return fallback;
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`--port must be a port number (0-65535), not '${values.port}'`);
    process.exit(2);
  }
  return port;
}

/** `suigw authz`: Envoy's ext_authz (`envoy.service.auth.v3.Authorization/Check`). */
export async function runAuthz(argv: string[]): Promise<void> {
  const port = portOption(argv, AUTHZ_DEFAULT_PORT);
  const config = readConfig();
  requireSecret(config, 'authz');
  const runtime = await openRuntime(config, { migrate: false });
  const { database, clock, logger } = runtime;
  const metrics = new Metrics();
  const opened = await openPipeline({ ...runtime, config, metrics }, { stages: 'access' });
  const declarations = await routeTableFromWorker();
  const authz = new AuthzCheck({
    pipeline: opened.pipeline,
    routes: new GatewayRoutes(declarations, config.networks),
    networkPath: networkRewriter(config),
    identity: signedIdentityOf(config, config.secret!, clock),
    logger,
  });
  const server = await bindPort('--port', port, () => startEnvoyServices({ authz }, { host: config.host, port }, logger));
  // /metrics (key cache hits and misses) on its own listener, as the gateway's (README: Metrics).
  const metricsServer = await serveRoleMetrics(metrics, config);
  onShutdown(async () => {
    await server.close();
    await metricsServer?.close();
    await opened.close();
    await database.close();
  }, logger);
  logger.info({ port: server.port, routes: declarations.length, metricsUrl: metricsServer?.url }, 'authz (ext_authz) listening');
}

/** `suigw ratelimit`: Envoy's global rate limit service over the metering limiter and ledger. */
export async function runRateLimit(argv: string[]): Promise<void> {
  const port = portOption(argv, RATELIMIT_DEFAULT_PORT);
  const config = readConfig();
  requireSecret(config, 'ratelimit');
  const runtime = await openRuntime(config, { migrate: false });
  const { database, clock, logger } = runtime;
  const metrics = new Metrics();
  const opened = await openPipeline({ ...runtime, config, metrics });
  // This process charges only refusals: it re-reads the period's totals on the flush interval,
  // so the credits it checks lag the gateways' charges by at most two intervals (docs/envoy.md).
  const reconcile = setInterval(() => void opened.metering?.ledger.reconcile([]), config.metering.usageFlushMs);
  const ratelimit = new RateLimitCheck({ pipeline: opened.pipeline, identity: signedIdentityOf(config, config.secret!, clock), clock });
  const server = await bindPort('--port', port, () => startEnvoyServices({ ratelimit }, { host: config.host, port }, logger));
  // /metrics (429s by kind, credits of refusals, Redis fail-open decisions) on its own listener.
  const metricsServer = await serveRoleMetrics(metrics, config);
  onShutdown(async () => {
    await server.close();
    await metricsServer?.close();
    clearInterval(reconcile);
    await opened.close();
    await database.close();
  }, logger);
  logger.info({ port: server.port, redis: config.redisUrl !== undefined, metricsUrl: metricsServer?.url }, 'ratelimit (RLS) listening');
}
