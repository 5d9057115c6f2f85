import { bindPort, Metrics } from '../core/index.js';
import { createGrpcProxy, networkByAuthority } from '../grpc/proxy/index.js';
import { openPipeline } from '../pipeline/index.js';
import { closeUpstreamSet, upstreamSetFromConfig } from '../upstream/index.js';
import { onShutdown, openRuntime, readConfig, warnAboutServing } from './runtime.js';
import { serveRoleMetrics } from './workers.js';

/**
 * `suigw grpc`: the gRPC and gRPC-Web proxy to every configured network's Sui v2 services on one
 * port (SUIGW_GRPC_PORT); the authority a client dials selects the network. Same key cache,
 * limits and credits as the HTTP gateway (shared through PostgreSQL and, with REDIS_URL, Redis).
 */
export async function runGrpc(): Promise<void> {
  const config = readConfig();
  const runtime = await openRuntime(config, { migrate: config.databaseUrl === undefined });
  warnAboutServing(config, runtime.logger, 'grpc');
  const upstreams = upstreamSetFromConfig(config, runtime.logger);
  const metrics = new Metrics();
  for (const upstream of upstreams.values()) upstream.instrument?.(metrics);
  const opened = await openPipeline({ ...runtime, config, metrics });
  const proxy = createGrpcProxy({ pipeline: opened.pipeline, upstreams, metrics, networkOf: networkByAuthority(config.grpc.hosts),
    handshakeTimeoutMs: config.http.headersTimeoutMs, idleTimeoutMs: config.http.idleTimeoutMs, clock: runtime.clock,
    maxConnectionsPerClient: config.grpc.maxConnectionsPerIp, drainMs: config.upstream.deadlineMs, trustProxy: config.trustProxy });
  // /metrics on its own listener, as the gateway's (README: Metrics).
  const metricsServer = await serveRoleMetrics(metrics, config);
  onShutdown(async () => {
    await proxy.close();
    await metricsServer?.close();
    await opened.close();
    await closeUpstreamSet(upstreams);
    await runtime.database.close();
  }, runtime.logger);
  const address = await bindPort('SUIGW_GRPC_PORT', config.grpc.port, () => proxy.listen(config.grpc.port, config.host));
  runtime.logger.info({ address, networks: config.networks }, 'grpc proxy listening');
}
