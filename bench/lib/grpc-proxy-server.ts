/**
 * The gRPC proxy in a process of its own, built as `suigw grpc` builds it (services/cli/grpc.ts):
 * configuration from the environment (production log level, default key cache TTL, the upstream
 * set from SUI_MAINNET_GRPC_URL, REDIS_URL or not), PostgreSQL from DATABASE_URL (migrated), the
 * Prometheus instruments recorded as in production (no /metrics listener). Only the port and
 * interface are forced. Announces `{url}` (see service-process.ts).
 *
 * One addition for benchmarks, not on a production path: on SIGUSR2 it reports over IPC
 * `{refused}`, the calls metering refused so far (`suigw_rate_limit_rejections_total`). A refusal
 * is a gRPC status in an HTTP 200, which h2load counts as a success: the harness reads this
 * count around each run so that refused calls are failures, not throughput.
 */
import { createLogger, flushLogger, installLeanAsyncResourceBind, Metrics, systemClock } from '../../services/core/index.js';
import { readConfig } from '../../services/cli/runtime.js';
import { openDatabase } from '../../services/db/index.js';
import { createGrpcProxy, networkByAuthority } from '../../services/grpc/proxy/index.js';
import { openPipeline } from '../../services/pipeline/index.js';
import { closeUpstreamSet, upstreamSetFromConfig } from '../../services/upstream/index.js';
import { exitWithParent, serveUntilStopped } from './service-process.js';

exitWithParent();
// As every role's process does at start (services/cli).
installLeanAsyncResourceBind();

export interface GrpcProxyReady {
  url: string;
}

export interface GrpcProxyRefusals {
  refused: number;
}

const config = readConfig({ HOST: '127.0.0.1' });
if (!config.databaseUrl) throw new Error('DATABASE_URL is required (a migrated PostgreSQL database)');
const logger = createLogger(config.logLevel);
const database = await openDatabase({ url: config.databaseUrl });
const upstreams = upstreamSetFromConfig(config, logger);
const metrics = new Metrics();
for (const upstream of upstreams.values()) upstream.instrument?.(metrics);
const opened = await openPipeline({ config, database, clock: systemClock, logger, metrics });
const proxy = createGrpcProxy({ pipeline: opened.pipeline, upstreams, networkOf: networkByAuthority(config.grpc.hosts) });
const address = await proxy.listen(0, config.host);

process.on('SIGUSR2', () => {
  void metrics.rateLimitRejections.get().then(({ values }) => {
    const report: GrpcProxyRefusals = { refused: values.reduce((sum, { value }) => sum + value, 0) };
    if (process.send) process.send(report);
    else console.log(JSON.stringify(report));
  });
});

const ready: GrpcProxyReady = { url: `http://127.0.0.1:${address.port}` };
serveUntilStopped(ready, async () => {
  await proxy.close();
  await opened.close();
  await closeUpstreamSet(upstreams);
  await database.close();
  flushLogger(logger);
});
