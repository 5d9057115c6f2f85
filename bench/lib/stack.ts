import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ENV_SCHEMA } from '../../services/core/index.js';
import { POD_HEAP } from '../../test/support/pod-heap.js';
import { createBenchTenant, type BenchTenant } from './bench-tenant.js';
import type { BareProxyReady } from './bare-proxy.js';
import type { GatewayReady } from './gateway-server.js';
import type { GrpcProxyReady } from './grpc-proxy-server.js';
import { startServiceProcess, type ServiceProcess } from './service-process.js';
import type { GrpcTransportChoice, MeteringVariant, BenchSettings } from './settings.js';
import type { SimnetReady } from './simnet-process.js';

/**
 * Everything an HTTP benchmark runs against, each server in its own process: simnet (the
 * upstream), one gateway per metering variant (production settings, PostgreSQL, an enterprise
 * key), and the bare fastify proxy. `stop()` stops every process it started and drops the
 * database, whatever failed; so does SIGINT or SIGTERM to the benchmark.
 */
export interface GatewayProcess extends ServiceProcess<GatewayReady> {
  variant: MeteringVariant;
  /** Set when BENCH_GATEWAY_TRANSPORTS chose it; otherwise the configuration's default. */
  transport: GrpcTransportChoice | undefined;
  /** `gateway (redis)`, or `gateway (redis, h2)` when the transport was chosen. */
  label: string;
}

export interface BenchStack {
  simnet: ServiceProcess<SimnetReady>;
  gateways: GatewayProcess[];
  /** The bare proxy on the SDK's grpc-js transport (pinned: the gateway's default does not move it). */
  /** With BENCH_COMPARE_TREE: the first variant's gateway built from that checkout (A/B in the same rounds). */
  compareGateway: GatewayProcess | undefined;
  bare: ServiceProcess<BareProxyReady>;
  /** The same bare proxy on the `h2` transport, with BENCH_BARE_H2=1. */
  bareH2: ServiceProcess<BareProxyReady> | undefined;
  /** An enterprise organization's key for mainnet. */
  apiKey: string;
  /** The stack's database (migrated), for processes that add tenants of their own. */
  databaseUrl: string;
  /** The plans file every subject reads (SUIGW_PLANS_FILE). */
  plansFile: string;
  /** Bytes the gateways logged so far (proof that logging was on). */
  loggedBytes(): number;
  stop(): Promise<void>;
}

export interface StackOptions {
  /** Start each gateway with `--expose-gc` (bench/memory.ts). */
  exposeGc?: boolean;
  /** Settings added to every gateway's environment (bench/lib/noisy-stack.ts: its secret, the webhook URL policy). */
  gatewayEnv?: NodeJS.ProcessEnv;
}

/**
 * `BENCH_GATEWAY_NODE_FLAGS` (space-separated) adds Node flags to every gateway process, e.g.
 * `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile it under load (written when it stops).
 */
export function gatewayNodeFlags(): string[] {
  return nodeFlagsOf('BENCH_GATEWAY_NODE_FLAGS');
}

/**
 * `BENCH_BARE_NODE_FLAGS` (space-separated): the same for the bare proxy, so the baseline can be
 * profiled under the same load (`--cpu-prof --cpu-prof-dir=DIR`).
 */
export function bareNodeFlags(): string[] {
  return nodeFlagsOf('BENCH_BARE_NODE_FLAGS');
}

/**
 * The heap of the Envoy roles and of their bare baseline: `pod` (default) gives each the heap a
 * pod with the chart's memory limit gives it (POD_HEAP, test/support/pod-heap.ts); `host`: Node's
 * defaults on this machine (BENCH_ENVOY_HEAP).
 */
export function envoyHeapFlags(): string[] {
  const heap = process.env['BENCH_ENVOY_HEAP'] ?? 'pod';
  if (heap !== 'pod' && heap !== 'host') throw new Error(`BENCH_ENVOY_HEAP must be pod or host, not '${heap}'`);
  return heap === 'pod' ? [...POD_HEAP.nodeFlags] : [];
}

/**
 * `BENCH_ENVOY_NODE_FLAGS` (space-separated): Node flags for this checkout's `suigw authz` and
 * `suigw ratelimit` only, after the heap's (a later V8 flag wins), not for a BENCH_COMPARE_TREE's,
 * so a flag is measured A/B in one run (e.g. `--max-semi-space-size=32` against the default, with
 * the compared tree a copy of this one).
 */
export function envoyNodeFlags(): string[] {
  return [...envoyHeapFlags(), ...nodeFlagsOf('BENCH_ENVOY_NODE_FLAGS')];
}

/**
 * `BENCH_COMPARE_ENVOY_NODE_FLAGS` (space-separated): the same for the BENCH_COMPARE_TREE's roles,
 * so two settings are measured A/B in one run, neither of them the heap's default.
 */
export function compareEnvoyNodeFlags(): string[] {
  return [...envoyHeapFlags(), ...nodeFlagsOf('BENCH_COMPARE_ENVOY_NODE_FLAGS')];
}

function nodeFlagsOf(variable: string): string[] {
  return (process.env[variable] ?? '').split(' ').filter((flag) => flag !== '');
}

/**
 * `BENCH_COMPARE_TREE=DIR`: another checkout of the gateway (e.g. `git archive` of the commit
 * before a change, with this checkout's node_modules linked in). Its gateway runs beside this
 * one's, for the first metering variant, as one more subject of the same interleaved rounds.
 */
export function compareTree(): string | undefined {
  return process.env['BENCH_COMPARE_TREE'] || undefined;
}

/** This process's environment without any suigw setting: each subject gets only its own. */
export function cleanEnvironment(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(ENV_SCHEMA.shape)) delete env[name];
  return env;
}

export async function assertRedisAnswers(url: string): Promise<void> {
  const { hostname, port } = new URL(url);
  await new Promise<void>((resolve, reject) => {
    const socket = createConnection({ host: hostname, port: Number(port || 6379) });
    socket.setTimeout(2_000, () => socket.destroy(new Error('timeout')));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.end();
      if (data.toString().startsWith('+PONG')) resolve();
      else reject(new Error(`Redis at ${url} answered ${JSON.stringify(data.toString())}`));
    });
    socket.once('error', (error) => reject(new Error(`Redis at ${url} does not answer (${error.message}); BENCH_METERING=redis needs it`)));
  });
}

/**
 * The environment of a server under test (a gateway, the gRPC proxy) in front of simnet: nothing
 * inherited from the shell's suigw settings, the production log level, a fresh secret and the
 * metering variant's settings.
 */
export function subjectEnvironment(
  tenant: Pick<BenchTenant, 'databaseUrl' | 'plansFile'>, simnet: { grpcUrl: string; graphqlUrl: string }, variant: MeteringVariant, settings: BenchSettings,
  transport?: GrpcTransportChoice,
): NodeJS.ProcessEnv {
  return {
    ...cleanEnvironment(),
    DATABASE_URL: tenant.databaseUrl,
    SUIGW_PLANS_FILE: tenant.plansFile,
    LOG_LEVEL: settings.logLevel,
    SUIGW_SECRET: randomBytes(32).toString('hex'),
    SUI_MAINNET_GRPC_URL: simnet.grpcUrl,
    SUI_MAINNET_GRAPHQL_URL: simnet.graphqlUrl,
    ...meteringEnvironment(variant, settings),
    ...(transport ? { SUIGW_UPSTREAM_GRPC_TRANSPORT: transport } : {}),
  };
}

export function meteringEnvironment(variant: MeteringVariant, settings: BenchSettings): NodeJS.ProcessEnv {
  switch (variant) {
    case 'redis':
      return { REDIS_URL: settings.redisUrl };
    case 'memory':
      return {};
    case 'off':
      return { SUIGW_METERING: 'off' };
  }
}

export async function startBenchStack(settings: BenchSettings, options: StackOptions = {}): Promise<BenchStack> {
  const started: ServiceProcess<unknown>[] = [];
  let tenant: BenchTenant | undefined;
  const logDirectory = await mkdtemp(join(tmpdir(), 'suigw-bench-logs-'));
  const logFiles: string[] = [];
  let stopping: Promise<void> | undefined;
  // Once: a signal and the benchmark's own `finally` may both ask.
  const stop = () =>
    (stopping ??= (async () => {
      process.off('SIGINT', interrupted);
      process.off('SIGTERM', interrupted);
      for (const child of started.reverse()) await child.stop();
      await tenant?.drop();
      await rm(logDirectory, { recursive: true, force: true });
    })());
  // Ctrl-C or a kill mid-run still stops the servers and drops the database.
  const interrupted = (signal: NodeJS.Signals) => {
    console.error(`\n${signal}: stopping the benchmark's processes…`);
    void stop().finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    if (settings.metering.includes('redis')) await assertRedisAnswers(settings.redisUrl);
    tenant = await createBenchTenant();
    const simnet = await startServiceProcess<SimnetReady>({ name: 'simnet', script: 'bench/lib/simnet-process.ts', env: process.env, stdout: 'ignore' });
    started.push(simnet);
    const gateways: GatewayProcess[] = [];
    const startGateway = async (variant: MeteringVariant, transport: GrpcTransportChoice | undefined, root?: string): Promise<GatewayProcess> => {
      const label = root === undefined ? `gateway (${variant}${transport ? `, ${transport}` : ''})` : `compared (${variant})`;
      const logFile = join(logDirectory, `${label.replace(/\W+/g, '-')}.log`);
      const fd = openSync(logFile, 'a');
      logFiles.push(logFile);
      try {
        const gateway = await startServiceProcess<GatewayReady>({
          name: label,
          script: 'bench/lib/gateway-server.ts',
          root,
          nodeFlags: [...(options.exposeGc ? ['--expose-gc'] : []), ...gatewayNodeFlags()],
          env: { ...subjectEnvironment(tenant!, simnet.ready, variant, settings, transport), ...options.gatewayEnv },
          // pino writes the log to stdout: a file, as a container runtime would keep it.
          stdout: fd,
        });
        started.push(gateway);
        return Object.assign(gateway, { variant, transport, label });
      } finally {
        closeSync(fd);
      }
    };
    const transports = settings.transports.length > 0 ? settings.transports : [undefined];
    for (const variant of settings.metering) {
      for (const transport of transports) gateways.push(await startGateway(variant, transport));
    }
    // BENCH_COMPARE_TREE: another checkout's gateway (its own default transport) in the same rounds.
    const otherTree = compareTree();
    const compareGateway = otherTree === undefined ? undefined : await startGateway(settings.metering[0]!, undefined, otherTree);
    const startBare = async (transport: GrpcTransportChoice) => {
      const bare = await startServiceProcess<BareProxyReady>({
        name: `bare proxy (${transport})`,
        script: 'bench/lib/bare-proxy.ts',
        nodeFlags: bareNodeFlags(),
        env: { ...cleanEnvironment(), SUI_GRPC_URL: simnet.ready.grpcUrl, BARE_GRPC_TRANSPORT: transport, BARE_LEAN_BIND: settings.bareLeanBind ? '1' : '' },
        stdout: 'ignore',
      });
      started.push(bare);
      return bare;
    };
    const bare = await startBare('grpc-js');
    const bareH2 = settings.bareH2 ? await startBare('h2') : undefined;
    return {
      simnet,
      gateways,
      compareGateway,
      bare,
      bareH2,
      apiKey: tenant.apiKey,
      databaseUrl: tenant.databaseUrl,
      plansFile: tenant.plansFile,
      loggedBytes: () => logFiles.reduce((sum, file) => sum + statSync(file).size, 0),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

export interface GrpcProxyProcess {
  variant: MeteringVariant;
  /** The subject's name: `grpc proxy (memory)`, or `grpc proxy (memory, B)` for the A/B run's second one. */
  name: string;
  process: ServiceProcess<GrpcProxyReady>;
  /** False for a proxy from an older checkout, which would not answer SIGUSR2 (see grpc-proxy-server.ts). */
  reportsRefusals: boolean;
}

/** Whether another checkout's proxy server answers SIGUSR2 with its refusals (older ones would die of it). */
function answersRefusals(root: string): boolean {
  return readFileSync(join(root, 'bench/lib/grpc-proxy-server.ts'), 'utf8').includes(REFUSALS_MARK);
}

/** The field grpc-proxy-server.ts reports refusals in (see `GrpcProxyRefusals`). */
const REFUSALS_MARK = 'refused:';

/**
 * One gRPC proxy process (`bench/lib/grpc-proxy-server.ts`, built as `suigw grpc`) per metering
 * variant except `off` (the proxy always meters), in front of `simnet`, and with
 * `settings.grpcB` a second one per variant from that checkout or with those Node flags; each is
 * pushed on `started` as soon as it runs, so the caller stops it on failure too.
 */
export async function startGrpcProxies(
  tenant: Pick<BenchTenant, 'databaseUrl' | 'plansFile'>, simnet: { grpcUrl: string; graphqlUrl: string }, settings: BenchSettings, started: ServiceProcess<unknown>[],
): Promise<GrpcProxyProcess[]> {
  const proxies: GrpcProxyProcess[] = [];
  const start = async (variant: MeteringVariant, name: string, nodeFlags: string[], root: string | undefined) => {
    const proxy = await startServiceProcess<GrpcProxyReady>({
      name,
      script: 'bench/lib/grpc-proxy-server.ts',
      ...(root === undefined ? {} : { root }),
      nodeFlags,
      env: subjectEnvironment(tenant, simnet, variant, settings),
      stdout: 'ignore',
    });
    started.push(proxy);
    proxies.push({ variant, name, process: proxy, reportsRefusals: root === undefined || answersRefusals(root) });
  };
  for (const variant of settings.metering.filter((v) => v !== 'off')) {
    // As for the gateways: e.g. BENCH_GATEWAY_NODE_FLAGS=`--cpu-prof --cpu-prof-dir=/tmp/prof`.
    await start(variant, `grpc proxy (${variant})`, gatewayNodeFlags(), undefined);
    if (settings.grpcB) await start(variant, `grpc proxy (${variant}, B)`, [...gatewayNodeFlags(), ...settings.grpcB.nodeFlags], settings.grpcB.root);
  }
  return proxies;
}
