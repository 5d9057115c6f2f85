import { bindPort, Metrics } from '../core/index.js';
import { buildGatewayApp } from './gateway-app.js';
import { closeUpstreamSet, upstreamSetFromConfig } from '../upstream/index.js';
import { onShutdown, openRuntime, readConfig, warnAboutServing, requireSecret } from './runtime.js';
import { serveRoleMetrics } from './workers.js';

/**
 * `suigw gateway`: the HTTP gateway alone. It migrates only the embedded database; against
 * PostgreSQL run `suigw migrate` first (a Job in Kubernetes).
 */
export async function runGateway(): Promise<void> {
  const config = readConfig();
  requireSecret(config, 'gateway');
  const runtime = await openRuntime(config, { migrate: config.databaseUrl === undefined });
  warnAboutServing(config, runtime.logger, 'gateway');
  const upstreams = upstreamSetFromConfig(config, runtime.logger);
  const metrics = new Metrics();
  const app = await buildGatewayApp({ ...runtime, upstreams, metrics });
  // /metrics on its own listener, never on the public port (README: Metrics).
  const metricsServer = await serveRoleMetrics(metrics, config);
  onShutdown(async () => {
    await app.close();
    await metricsServer?.close();
    await closeUpstreamSet(upstreams);
    await runtime.database.close();
  }, runtime.logger);
  const address = await bindPort('PORT', config.port, () => app.listen({ port: config.port, host: config.host }));
  runtime.logger.info({ address, networks: config.networks, metricsUrl: metricsServer?.url }, 'gateway listening');
}
