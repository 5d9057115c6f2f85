import { bindPort, Metrics, startMetricsServer } from '../core/index.js';
import { openPipeline } from '../pipeline/index.js';
import { startWarpRuntime } from '../streams/index.js';
import { closeUpstreamSet, upstreamSetFromConfig } from '../upstream/index.js';
import { createWebhookRuntime } from '../webhooks/index.js';
import { buildStreamsApp } from './streams-app.js';
import { onShutdown, openRuntime, readConfig, warnAboutServing, requireSecret } from './runtime.js';

/**
 * `suigw streams`: checkpoint ingest (one subscription per configured network), Warp delivery
 * (`/v1/warp/{id}/ws|stream` and `/health`; `/metrics` on its own port, see `buildStreamsApp`)
 * and webhook delivery (docs/webhooks.md, due deliveries claimed from PostgreSQL by every
 * process); stream and webhook definitions and every other route are the gateway's. Several
 * processes share one Redis
 * (REDIS_URL): the stream logs, the delivery state and the one-connection leases live there, so a
 * client resumes on any process. Without REDIS_URL everything is in-process (one process only).
 */
export async function runStreams(): Promise<void> {
  const config = readConfig();
  requireSecret(config, 'streams');
  const runtime = await openRuntime(config, { migrate: config.databaseUrl === undefined });
  warnAboutServing(config, runtime.logger, 'streams');
  const upstreams = upstreamSetFromConfig(config, runtime.logger);
  const metrics = new Metrics();
  // One pipeline for Warp delivery and webhook delivery: both charge the organization's credits through its meter.
  const pipeline = await openPipeline({ ...runtime, metrics });
  // Webhooks ride on the same ingest: matched with the streams, attempted from PostgreSQL by every process.
  const webhooks = createWebhookRuntime({
    config, secret: config.secret!, database: runtime.database, clock: runtime.clock, logger: runtime.logger, pipeline: pipeline.pipeline, start: true, registry: metrics.registry,
  });
  const warp = await startWarpRuntime({
    redisUrl: config.redisUrl, database: runtime.database, clock: runtime.clock, logger: runtime.logger, upstreams,
    // Every process ingests: the log appends each checkpoint to a stream once, so replicas need no election.
    ingest: true,
    consumers: [webhooks.consumer],
    metrics,
  });
  const app = await buildStreamsApp({ ...runtime, metrics, warp, pipeline });
  const metricsServer = config.metrics ? await startMetricsServer(metrics, config.metrics) : undefined;
  onShutdown(async () => {
    await app.close();
    await warp.close();
    await webhooks.close();
    // After both deliveries stopped: the flush writes every credit they charged.
    await pipeline.close();
    await metricsServer?.close();
    await closeUpstreamSet(upstreams);
    await runtime.database.close();
  }, runtime.logger);
  const address = await bindPort('PORT', config.port, () => app.listen({ port: config.port, host: config.host }));
  runtime.logger.info({ address, networks: config.networks, ingest: warp.ingests.length }, 'streams listening');
}
