import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { bindPort, Metrics, startMetricsServer, type Config, type Network } from '../core/index.js';
import { createGrpcProxy, type GrpcProxy } from '../grpc/proxy/index.js';
import { openPipeline } from '../pipeline/index.js';
import { networkBaseUrl } from '../http/index.js';
import { buildGatewayApp } from './gateway-app.js';
import { billingParts } from './billing-parts.js';
import { startBillingScheduler } from '../billing/index.js';
import { closeUpstreamSet, upstreamSetFromConfig } from '../upstream/index.js';
import { onShutdown, openRuntime, readConfig } from './runtime.js';
import { startWarpRuntime } from '../streams/index.js';
import { createWebhookRuntime } from '../webhooks/index.js';
import { seedDevOrganization, UnusableDevAdminKeyError, type DevSeed } from './dev-seed.js';

/** What `suigw dev` writes for scripts and tests: where everything is and the admin key. */
export interface DevState {
  gatewayUrl: string;
  adminKey: string;
  organizationId: string;
  /** `wsBaseUrl`: Warp WebSockets; `grpcUrl`: the network's gRPC / gRPC-Web proxy (one port per network). */
  networks: Record<string, { baseUrl: string; wsBaseUrl: string; grpcUrl?: string }>;
  /** Prometheus `/metrics` on its own port; absent when SUIGW_METRICS_PORT=off. */
  metricsUrl?: string;
  /** The in-process simulated network, when some network has no upstream URLs configured. */
  simnet?: { grpcUrl: string; graphqlUrl: string; faucetUrl: string };
}

interface DevSimnet {
  grpcUrl: string;
  graphqlUrl: string;
  faucetUrl: string;
  stop(): Promise<void>;
}

/**
 * Networks without both upstream URLs get simnet, started in this process (one simulated chain
 * serves them all); networks with URLs keep them.
 */
async function devUpstreams(config: Readonly<Config>): Promise<{ config: Readonly<Config>; simnet: DevSimnet | undefined }> {
  const missing = config.networks.filter((n) => !config.endpoints[n].grpcUrl || !config.endpoints[n].graphqlUrl);
  if (missing.length === 0) return { config, simnet: undefined };
  // Loaded on demand: the production roles never start a simulated network.
  const { startSimnet } = await import('../simnet/index.js');
  // Each run's simnet starts from genesis: a chain of its own, so streams and webhooks kept in
  // `.suigw/` follow the new chain at once rather than wait for the old run's checkpoint numbers.
  const simnet = await startSimnet({ seed: 'dev', host: '127.0.0.1', newChain: true });
  const endpoints = { ...config.endpoints } as Record<Network, Config['endpoints'][Network]>;
  for (const network of missing) endpoints[network] = { ...endpoints[network], grpcUrl: simnet.grpcUrl, graphqlUrl: simnet.graphqlUrl };
  // On-chain billing against simnet's billing app, its `deployer` as the sponsor key (docs/billing.md, Try it).
  const { CATALOG, COIN_TYPES, BILLING_TREASURY } = await import('../simnet/index.js');
  const simnetBilling = { packageId: CATALOG.billingPackage, configId: CATALOG.billingConfig, usdcType: COIN_TYPES.USDC, treasury: BILLING_TREASURY };
  const billing = config.billing.sponsorKey ? config.billing : Object.freeze({
    ...config.billing,
    networks: Object.freeze(Object.fromEntries(missing.map((network) => [network, simnetBilling]))),
    sponsorKey: simnet.accounts.find((account) => account.label === 'deployer')!.keypair.getSecretKey(),
  });
  return { config: Object.freeze({ ...config, endpoints: Object.freeze(endpoints), billing }), simnet };
}

async function readJson<T>(path: string): Promise<Partial<T>> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as Partial<T>;
  } catch {
    return {};
  }
}

/** The dev server's HMAC secret persists under the data dir so cursors survive restarts. */
async function devSecret(dataDir: string): Promise<string> {
  const path = join(dataDir, 'secret');
  try {
    const secret = (await readFile(path, 'utf8')).trim();
    if (secret.length >= 32) return secret;
  } catch {
    // first start: made below
  }
  const secret = randomBytes(32).toString('hex');
  await mkdir(dataDir, { recursive: true });
  await writeFile(path, `${secret}\n`, { mode: 0o600 });
  return secret;
}

/**
 * `suigw dev`: the whole platform in one process for a laptop. Embedded PostgreSQL unless
 * DATABASE_URL, a seeded organization with an admin key, state written to `.suigw/dev.json`.
 */
export async function runDev(argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { 'state-file': { type: 'string' } } });
  const base = readConfig();
  // dev has no prover service: the local prover (its proofs do not verify on chain) unless one is configured.
  // Networks without upstream URLs run on simnet (devUpstreams): their catalog is simnet's.
  const simnetNetworks = base.networks.filter((n) => !base.endpoints[n].grpcUrl || !base.endpoints[n].graphqlUrl);
  const config = readConfig({
    ...(base.secret ? {} : { SUIGW_SECRET: await devSecret(base.dataDir) }),
    ...(base.zklogin.proverUrl ? {} : { SUIGW_ZKLOGIN_PROVER_URL: 'local' }),
    // Webhooks to a receiver on the laptop: http and loopback addresses (HTTPS and public addresses only elsewhere).
    ...(base.webhooks.allowHttp ? {} : { SUIGW_WEBHOOK_ALLOW_HTTP: 'true' }),
    ...(base.webhooks.allowedAddresses.length > 0 ? {} : { SUIGW_WEBHOOK_ALLOWED_ADDRESSES: '127.0.0.0/8,::1' }),
    ...(base.catalogSimnetNetworks.length > 0 ? {} : { SUIGW_CATALOG_SIMNET_NETWORKS: simnetNetworks.join(',') }),
  });
  const stateFile = values['state-file'] ?? join(config.dataDir, 'dev.json');
  const previous = await readJson<DevState>(stateFile);

  const upstreamSetup = await devUpstreams(config);
  const runtime = await openRuntime(config, { migrate: true });
  const upstreams = upstreamSetFromConfig(upstreamSetup.config, runtime.logger);
  let seed: DevSeed;
  try {
    seed = await seedDevOrganization(runtime.database, runtime.clock, {
      adminKey: config.devAdminKey ?? previous.adminKey,
      organizationId: previous.organizationId,
    });
  } catch (error) {
    if (!(error instanceof UnusableDevAdminKeyError)) throw error;
    console.error(unusableKeyHelp(error, config.devAdminKey !== undefined, stateFile));
    await upstreamSetup.simnet?.stop();
    await runtime.database.close();
    process.exit(1);
  }
  const metrics = new Metrics();
  // One pipeline (key cache, limiter, ledger, meter) for the HTTP gateway and the gRPC proxies of this process.
  const pipeline = await openPipeline({ ...runtime, metrics });
  // Warp streams and webhooks in-process: ingest from the (simulated) upstreams, in-memory log unless REDIS_URL.
  const webhooks = createWebhookRuntime({
    config, secret: config.secret!, database: runtime.database, clock: runtime.clock, logger: runtime.logger, pipeline: pipeline.pipeline, start: true, registry: metrics.registry,
  });
  const warp = await startWarpRuntime({
    redisUrl: config.redisUrl, database: runtime.database, clock: runtime.clock, logger: runtime.logger, upstreams, ingest: true, consumers: [webhooks.consumer], metrics,
  });
  const billing = billingParts({ ...runtime, config: upstreamSetup.config, upstreams, identityChanged: (change) => pipeline.authenticator.invalidate(change) });
  const billingScheduler = startBillingScheduler({ pass: billing.pass, lock: billing.lock, intervalMs: 60_000, logger: runtime.logger });
  const app = await buildGatewayApp({ ...runtime, upstreams, metrics, pipeline, warp, billing });
  const metricsServer = config.metrics ? await startMetricsServer(metrics, config.metrics) : undefined;
  const grpcProxies = await startDevGrpcProxies(config, { pipeline: pipeline.pipeline, upstreams, metrics, clock: runtime.clock });
  onShutdown(async () => {
    await Promise.all([...grpcProxies.values()].map(({ proxy }) => proxy.close()));
    await billingScheduler.stop();
    await app.close();
    await warp.close();
    await webhooks.close();
    await pipeline.close();
    await metricsServer?.close();
    await closeUpstreamSet(upstreams);
    await upstreamSetup.simnet?.stop();
    await runtime.database.close();
  }, runtime.logger);
  await bindPort('PORT', config.port, () => app.listen({ port: config.port, host: config.host }));
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const gatewayUrl = config.publicUrl ?? `http://${config.host}:${port}`;

  const state: DevState = {
    gatewayUrl,
    adminKey: seed.adminKey,
    organizationId: seed.organizationId,
    networks: Object.fromEntries(config.networks.map((n) => {
      const baseUrl = networkBaseUrl(config, n, gatewayUrl);
      return [n, { baseUrl, wsBaseUrl: baseUrl.replace(/^http/, 'ws'), ...(grpcProxies.has(n) ? { grpcUrl: grpcProxies.get(n)!.url } : {}) }];
    })),
    ...(metricsServer ? { metricsUrl: metricsServer.url } : {}),
    ...(upstreamSetup.simnet
      ? { simnet: { grpcUrl: upstreamSetup.simnet.grpcUrl, graphqlUrl: upstreamSetup.simnet.graphqlUrl, faucetUrl: upstreamSetup.simnet.faucetUrl } }
      : {}),
  };
  await mkdir(dirname(stateFile), { recursive: true });
  await writeFile(stateFile, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  printWelcome(state, stateFile, seed.created, runtime.database.kind);
}

/**
 * One gRPC proxy per network, each on its own port (SUIGW_GRPC_PORT, +1, ...; 0: free ports):
 * locally the port, not a host name, tells the networks apart.
 */
async function startDevGrpcProxies(config: Readonly<Config>, deps: Omit<Parameters<typeof createGrpcProxy>[0], 'networkOf'>): Promise<Map<Network, { proxy: GrpcProxy; url: string }>> {
  const proxies = new Map<Network, { proxy: GrpcProxy; url: string }>();
  for (const [index, network] of config.networks.entries()) {
    const proxy = createGrpcProxy({
      ...deps, networkOf: () => network, handshakeTimeoutMs: config.http.headersTimeoutMs, idleTimeoutMs: config.http.idleTimeoutMs,
      maxConnectionsPerClient: config.grpc.maxConnectionsPerIp, drainMs: config.upstream.deadlineMs, trustProxy: config.trustProxy,
    });
    const port = config.grpc.port === 0 ? 0 : config.grpc.port + index;
    const address = await bindPort('SUIGW_GRPC_PORT', port, () => proxy.listen(port, config.host));
    proxies.set(network, { proxy, url: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${address.port}` });
  }
  return proxies;
}

function unusableKeyHelp(error: UnusableDevAdminKeyError, fromEnvironment: boolean, stateFile: string): string {
  const fix = fromEnvironment
    ? [
        '  - set SUIGW_DEV_ADMIN_KEY to a new value (svc_pat_ followed by 32+ base58 characters),',
        '    or unset it to fall back to the stored key or a new one.',
      ]
    : [
        `  - remove ${stateFile}: the next start seeds a new dev organization and admin key`,
        '    (the old organization stays in the database), or',
        '  - set SUIGW_DEV_ADMIN_KEY to a key value to seed instead (svc_pat_ followed by 32+ base58 characters).',
      ];
  return [
    `suigw dev: the admin key ${fromEnvironment ? 'in SUIGW_DEV_ADMIN_KEY' : `stored in ${stateFile}`} is ${error.reason}, so it cannot be reused.`,
    'To start with a working admin key:',
    ...fix,
  ].join('\n');
}

function printWelcome(state: DevState, stateFile: string, created: boolean, databaseKind: string): void {
  const mainnet = state.networks['mainnet']?.baseUrl ?? Object.values(state.networks)[0]?.baseUrl;
  const lines = [
    '',
    `suigw dev is up at ${state.gatewayUrl} (database: ${databaseKind === 'pglite' ? 'embedded PGlite' : 'PostgreSQL'})`,
    ...Object.entries(state.networks).map(([network, { baseUrl, grpcUrl }]) => `  ${network.padEnd(8)} ${baseUrl}/v1${grpcUrl ? `   gRPC ${grpcUrl}` : ''}`),
    ...(state.metricsUrl ? [`  metrics  ${state.metricsUrl} (Prometheus, own port)`] : []),
    ...(state.simnet ? [`  upstream: simnet (gRPC ${state.simnet.grpcUrl}, GraphQL ${state.simnet.graphqlUrl}, faucet ${state.simnet.faucetUrl})`] : []),
    '',
    `admin key (${created ? 'new' : 'reused'}; scopes data, streams, manage, zkLogin; an administrator credential):`,
    `  ${state.adminKey}`,
    '',
    'try:',
    `  curl -s ${mainnet}/v1/auth/me -H 'x-api-key: ${state.adminKey}'`,
    `  curl -s ${mainnet}/v1/keys -H 'x-api-key: ${state.adminKey}'`,
    `  curl -s ${mainnet}/v1/chain -H 'x-api-key: ${state.adminKey}'`,
    `  curl -s -X POST ${mainnet}/v1/keys -H 'x-api-key: ${state.adminKey}' -H 'content-type: application/json' \\`,
    `       -d '{"name":"my app","projectId":"<id from /v1/projects>","scopes":["data"]}'`,
    `  open ${state.gatewayUrl}/docs   (OpenAPI: ${state.gatewayUrl}/v1/openapi.json)`,
    '',
    `state written to ${stateFile}; Ctrl-C stops.`,
    '',
  ];
  console.log(lines.join('\n'));
}
