import { buildGatewayApp } from './gateway-app.js';
import { closeUpstreamSet, upstreamSetFromConfig } from '../upstream/index.js';
import { onShutdown, openRuntime, readConfig, requireSecret } from './runtime.js';

/**
 * `suigw gateway`: the HTTP gateway alone. It migrates only the embedded database; against
 * PostgreSQL run `suigw migrate` first (a Job in Kubernetes).
 */
export async function runGateway(): Promise<void> {
  const config = readConfig();
  requireSecret(config, 'gateway');
  const runtime = await openRuntime(config, { migrate: config.databaseUrl === undefined });
  const upstreams = upstreamSetFromConfig(config);
  const app = await buildGatewayApp({ ...runtime, upstreams });
  onShutdown(async () => {
    await app.close();
    await closeUpstreamSet(upstreams);
    await runtime.database.close();
  }, runtime.logger);
  const address = await app.listen({ port: config.port, host: config.host });
  runtime.logger.info({ address, networks: config.networks }, 'gateway listening');
}
