import { randomBytes } from 'node:crypto';
import { deriveSubkey, Metrics, type Clock, type Config, type Logger } from '../core/index.js';
import type { Database } from '../db/index.js';
import { buildHttpApp, type HealthCheck } from '../http/index.js';
import { Authenticator } from '../identity/index.js';
import { managementCapability, usageCapability } from '../management/index.js';
import { createMetering, type DeclaredRouteCost, type Metering } from '../metering/index.js';
import { createRestServices, restCapability, restConfigFrom } from '../rest/index.js';
import { streamDefinitionsCapability, warpDeliveryCapability, type WarpRuntime } from '../streams/index.js';
import type { App } from '../route-contract/index.js';
import { UpstreamMonitor, type UpstreamSet } from '../upstream/index.js';

export interface GatewayAppOptions {
  config: Readonly<Config>;
  database: Database;
  clock: Clock;
  logger: Logger;
  /** Shared with other adapters of the same process; created (and stopped on close) when absent. */
  authenticator?: Authenticator;
  healthChecks?: HealthCheck[];
  /** Upstreams of the data plane, owned by the caller (which closes them). */
  upstreams?: UpstreamSet;
  /** Created (and closed with the app: usage flushed) when absent. */
  metering?: Metering;
  /** The process's Prometheus instruments (served by `startMetricsServer`); one per app when absent. */
  metrics?: Metrics;
  /** Warp stream log and lease: serves `/v1/warp/{id}/ws|stream` when given (`suigw dev`, `suigw streams`). */
  warp?: Pick<WarpRuntime, 'log' | 'lease'>;
  /** Receives every route's declared cost (scripts/cost-table.ts). */
  onRouteCost?: (route: DeclaredRouteCost) => void;
}

/**
 * The composition root of the HTTP gateway: the one place that knows every capability and
 * wires each with its own dependencies into the fastify adapter. `suigw gateway`, `suigw dev`
 * and the tests build the gateway through here.
 */
export async function buildGatewayApp(options: GatewayAppOptions): Promise<App> {
  const { config, database, clock, logger } = options;
  const metrics = options.metrics ?? new Metrics();
  const authenticator = options.authenticator ?? new Authenticator({
    database, clock, ttlMs: config.keyCacheTtlMs, logger, cacheLookups: metrics.keyCacheLookups,
  });
  if (options.authenticator === undefined) await authenticator.start();
  const upstreams: UpstreamSet = options.upstreams ?? new Map();
  for (const upstream of upstreams.values()) upstream.instrument?.(metrics);
  const metering = options.metering ?? (await createMetering({ config, database, clock, logger, metrics }));
  // `suigw gateway` refuses to start without SUIGW_SECRET; an embedded app (tests) gets its own.
  const secret = config.secret ?? randomBytes(32).toString('hex');
  const restConfig = { ...restConfigFrom(config), cursorSecret: deriveSubkey(secret, 'cursors').toString('hex') };
  const restServices = createRestServices(restConfig, { db: database.db, now: () => clock.now() });
  // Probes the upstreams on a timer for /health; stopped with the app.
  const monitor = new UpstreamMonitor(upstreams, { intervalMs: config.upstream.probeIntervalMs, now: () => Date.now() });
  const app = await buildHttpApp({
    config,
    database,
    clock,
    logger,
    authenticator,
    meter: metering.meter,
    metrics,
    onRouteCost: options.onRouteCost,
    healthChecks: [...(options.healthChecks ?? []), ...monitor.healthChecks()],
    capabilities: [
      managementCapability({ database, clock, walletMinPrepaidMicroUsd: config.walletMinPrepaidMicroUsd,
        walletChallengeKey: deriveSubkey(secret, 'wallet-challenges'),
        identityChanged: (change) => authenticator.invalidate(change),
      }),
      restCapability({ upstreams, services: restServices, monitor }),
      usageCapability({ database, clock, usage: metering.usage }),
      streamDefinitionsCapability({ database, clock }),
      ...(options.warp ? [warpDeliveryCapability({ database, clock, logger, log: options.warp.log, lease: options.warp.lease, metering })] : []),
    ],
  });
  monitor.start();
  app.addHook('onClose', async () => monitor.stop());
  // onClose runs once the server has answered every request in flight: the flush sees them all.
  if (options.metering === undefined) app.addHook('onClose', async () => metering.close());
  if (options.authenticator === undefined) app.addHook('onClose', async () => authenticator.stop());
  return app;
}
