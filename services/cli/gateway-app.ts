import { randomBytes } from 'node:crypto';
import { catalogCapability, EventCatalog } from '../catalog/index.js';
import type { Metrics} from '../core/index.js';
import { CursorCodec, deriveSubkey, type Clock, type Config, type Logger } from '../core/index.js';
import type { Database } from '../db/index.js';
import { graphqlCapability, type PersistedQueries } from '../graphql/index.js';
import { buildHttpApp, type HealthCheck } from '../http/index.js';
import { managementCapability, usageCapability, WalletAllowance } from '../management/index.js';
import type { DeclaredRouteCost } from '../metering/index.js';
import type { OpenedPipeline } from '../pipeline/index.js';
import { CheckpointFeeds, jsonRpcCapability, jsonRpcWebSocketCapability, OrganizationShares } from '../jsonrpc/index.js';
import { createRestServices, restCapability, restConfigFrom } from '../rest/index.js';
import { streamDefinitionsCapability, warpDeliveryCapability, type WarpRuntime } from '../streams/index.js';
import type { App } from '../route-contract/index.js';
import { pipelineParts } from './pipeline-parts.js';
import { billingParts, type BillingParts } from './billing-parts.js';
import { billingCapability } from '../billing/index.js';
import { UpstreamMonitor, type UpstreamSet } from '../upstream/index.js';
import { webhooksCapability, webhookSecretBox } from '../webhooks/index.js';
import { SERVED_JSONRPC_METHODS } from './jsonrpc-methods.js';
import { createZkLogin, zkloginCapability, type Prover } from '../zklogin/index.js';

export interface GatewayAppOptions {
  config: Readonly<Config>;
  database: Database;
  clock: Clock;
  logger: Logger;
  /** Shared with other adapters of the same process (`suigw dev`); opened (and closed with the app) when absent. */
  pipeline?: OpenedPipeline;
  healthChecks?: HealthCheck[];
  /** Upstreams of the data plane, owned by the caller (which closes them). */
  upstreams?: UpstreamSet;
  /** The process's Prometheus instruments (served by `startMetricsServer`); one per app when absent. */
  metrics?: Metrics;
  /** The JSON-RPC subscriptions' upstream checkpoint streams (one per network); created when absent. */
  jsonRpcFeeds?: CheckpointFeeds;
  /** Warp stream log and lease: serves `/v1/warp/{id}/ws|stream` when given (`suigw dev`, `suigw streams`). */
  warp?: Pick<WarpRuntime, 'log' | 'lease'>;
  /** Receives every route's declared cost (scripts/cost-table.ts). */
  onRouteCost?: (route: DeclaredRouteCost) => void;
  /** zkLogin's prover, instead of the one SUIGW_ZKLOGIN_PROVER_URL names (tests). */
  zkloginProver?: Prover;
  /** GraphQL's persisted-query store, to look at it (tests); created when absent. */
  graphqlPersisted?: PersistedQueries;
  /** On-chain billing, shared with `suigw dev`'s scheduler; built from the config when absent. */
  billing?: BillingParts;
}

/**
 * The composition root of the HTTP gateway: the one place that knows every capability and
 * wires each with its own dependencies into the fastify adapter. `suigw gateway`, `suigw dev`
 * and the tests build the gateway through here.
 */
export async function buildGatewayApp(options: GatewayAppOptions): Promise<App> {
  const { config, database, clock, logger } = options;
  const parts = await pipelineParts(options);
  const { metrics, authenticator, metering, pipeline } = parts;
  const upstreams: UpstreamSet = options.upstreams ?? new Map();
  for (const upstream of upstreams.values()) upstream.instrument?.(metrics);
  // `suigw gateway` refuses to start without SUIGW_SECRET; an embedded app (tests) gets its own.
  const secret = config.secret ?? randomBytes(32).toString('hex');
  const restConfig = { ...restConfigFrom(config), cursorSecret: deriveSubkey(secret, 'cursors').toString('hex') };
  const restServices = createRestServices(restConfig, { db: database.db, now: () => clock.now() });
  // Probes the upstreams on a timer for /health; stopped with the app.
  const jsonRpcFeeds = options.jsonRpcFeeds ?? new CheckpointFeeds({ onError: (error) => logger.warn({ err: error }, 'JSON-RPC subscription feed: upstream stream failed') });
  const monitor = new UpstreamMonitor(upstreams, { intervalMs: config.upstream.probeIntervalMs, now: () => Date.now() });
  const app = await buildHttpApp({
    ...parts.httpPipeline,
    onRouteCost: options.onRouteCost,
    healthChecks: [...(options.healthChecks ?? []), ...monitor.healthChecks()],
    capabilities: [
      managementCapability({ database, clock, walletMinPrepaidMicroUsd: config.walletMinPrepaidMicroUsd,
        walletChallengeKey: deriveSubkey(secret, 'wallet-challenges'), upstreams,
        walletAllowance: new WalletAllowance(metering.limiter, metrics.rateLimitRejections),
        identityChanged: (change) => authenticator.invalidate(change),
      }),
      restCapability({ upstreams, services: restServices, monitor }),
      usageCapability({ database, clock, usage: metering.usage }),
      jsonRpcCapability({ methods: SERVED_JSONRPC_METHODS, upstreams, pipeline, logger,
        cursorSecret: restConfig.cursorSecret, cursorMaxAgeSeconds: restConfig.cursorMaxAgeSeconds, now: () => clock.now(),
        cache: config.jsonrpc.cache, metrics, maxResponseBytes: config.jsonrpc.maxResponseBytes,
      }),
      // JSON-RPC subscriptions: the WebSocket of /v1/jsonrpc, one upstream checkpoint stream per network.
      jsonRpcWebSocketCapability({ upstreams, pipeline, clock, feeds: jsonRpcFeeds, maxResponseBytes: config.jsonrpc.maxResponseBytes,
        organizationShares: new OrganizationShares({
          maxSockets: config.jsonrpc.webSocket.maxSocketsPerOrganization,
          maxSubscriptions: config.jsonrpc.webSocket.maxSubscriptionsPerOrganization,
        }) }),
      ...(config.zklogin.enabled ? [zkloginCapability(createZkLogin({
        config, database, clock, secret, limiter: metering.limiter, metrics, upstreams,
        ...(options.zkloginProver ? { prover: options.zkloginProver } : {}),
      }))] : []),
      graphqlCapability({ upstreams, limits: config.graphql, clock, ...(options.graphqlPersisted ? { persisted: options.graphqlPersisted } : {}) }),
      streamDefinitionsCapability({ database, clock }),
      webhooksCapability({ database, clock, box: webhookSecretBox(secret), policy: config.webhooks,
        cursors: new CursorCodec({ secret: restConfig.cursorSecret, maxAgeSeconds: restConfig.cursorMaxAgeSeconds, now: () => clock.now() }),
      }),
      billingCapability((options.billing ?? billingParts({ config, database, clock, upstreams, identityChanged: (change) => authenticator.invalidate(change) })).service),
      catalogCapability({
        catalog: EventCatalog.shipped(),
        cursors: new CursorCodec({ secret: restConfig.cursorSecret, maxAgeSeconds: restConfig.cursorMaxAgeSeconds, now: () => clock.now() }),
        catalogNetworkOf: (network) => (config.catalogSimnetNetworks.includes(network) ? 'simnet' : network),
      }),
      ...(options.warp ? [warpDeliveryCapability({ database, clock, logger, log: options.warp.log, lease: options.warp.lease, pipeline, metrics })] : []),
    ],
  });
  monitor.start();
  app.addHook('onClose', async () => monitor.stop());
  app.addHook('onClose', async () => jsonRpcFeeds.close());
  parts.closeWith(app);
  return app;
}
