import type { Metrics} from '../core/index.js';
import { type Clock, type Config, type Logger } from '../core/index.js';
import type { Database } from '../db/index.js';
import { buildHttpApp, type HealthCheck } from '../http/index.js';
import type { Authenticator } from '../identity/index.js';
import type { DeclaredRouteCost, Metering } from '../metering/index.js';
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
  /** Created (and stopped on close) when absent. */
  authenticator?: Authenticator;
  /** Created (and closed with the app: usage flushed) when absent. */
  metering?: Metering;
  metrics?: Metrics;
  healthChecks?: HealthCheck[];
  /** Receives every route's declared cost (scripts/cost-table.ts). */
  onRouteCost?: (route: DeclaredRouteCost) => void;
}

/**
 * The HTTP side of `suigw streams`: Warp delivery (`/v1/warp/{id}/ws|stream`) and `/health`,
 * through the same authentication, limit and meter stages as the gateway, and nothing else:
 * stream definitions, data and management routes are the gateway's (Envoy sends only
 * `/v1/warp/` here). `/metrics` is on its own listener (`startMetricsServer`), as for every role.
 */
export async function buildStreamsApp(options: StreamsAppOptions): Promise<App> {
  const { config, database, clock, logger } = options;
  const parts = await pipelineParts(options);
  const { metering } = parts;
  const app = await buildHttpApp({
    ...parts.httpPipeline,
    onRouteCost: options.onRouteCost,
    healthChecks: options.healthChecks ?? [],
    openApi: false,
    capabilities: [warpDeliveryCapability({ database, clock, logger, log: options.warp.log, lease: options.warp.lease, metering: config.metering.enabled ? metering : undefined })],
  });
  parts.closeWith(app);
  return app;
}
