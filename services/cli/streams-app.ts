import type { Metrics} from '../core/index.js';
import { type Clock, type Config, type Logger } from '../core/index.js';
import type { Database } from '../db/index.js';
import { buildHttpApp, type HealthCheck } from '../http/index.js';
import type { DeclaredRouteCost } from '../metering/index.js';
import type { OpenedPipeline } from '../pipeline/index.js';
import type { App } from '../route-contract/index.js';
import { pipelineParts } from './pipeline-parts.js';
import { warpDeliveryCapability, type WarpRuntime } from '../streams/index.js';

export interface StreamsAppOptions {
  config: Readonly<Config>;
  database: Database;
  clock: Clock;
  logger: Logger;
  /** The process's stream log and lease (Redis in production). */
  warp: Pick<WarpRuntime, 'log' | 'lease'>;
  /** Opened (and closed with the app: usage flushed) when absent. */
  pipeline?: OpenedPipeline;
  metrics?: Metrics;
  healthChecks?: HealthCheck[];
  /** Receives every route's declared cost (scripts/cost-table.ts). */
  onRouteCost?: (route: DeclaredRouteCost) => void;
}

/**
 * The HTTP side of `suigw streams`: Warp delivery (`/v1/warp/{id}/ws|stream`) and `/health`,
 * through the same authentication, limit and meter stages as the gateway (behind Envoy trusting
 * authz's identity tokens as it does, `pipelineParts`), and nothing else:
 * stream definitions, data and management routes are the gateway's (Envoy sends only
 * `/v1/warp/` here). `/metrics` is on its own listener (`startMetricsServer`), as for every role.
 */
export async function buildStreamsApp(options: StreamsAppOptions): Promise<App> {
  const { database, clock, logger } = options;
  const parts = await pipelineParts(options);
  const app = await buildHttpApp({
    ...parts.httpPipeline,
    onRouteCost: options.onRouteCost,
    healthChecks: [...(options.healthChecks ?? []), warpStoreCheck(options.warp)],
    openApi: false,
    capabilities: [warpDeliveryCapability({ database, clock, logger, log: options.warp.log, lease: options.warp.lease, pipeline: parts.pipeline, metrics: parts.metrics })],
  });
  parts.closeWith(app);
  return app;
}

/**
 * `/health` is `degraded` while the stream log or the lease cannot reach Redis: the ingest and
 * every Warp delivery of the process are stopped meanwhile (they resume by themselves). A status
 * read, no round trip per check.
 */
function warpStoreCheck(warp: Pick<WarpRuntime, 'log' | 'lease'>): HealthCheck {
  return {
    name: 'warp-store',
    check: async () => (warp.log.connected() && warp.lease.connected() ? { ok: true } : { ok: false, detail: 'the Warp store (Redis) is unreachable' }),
  };
}
