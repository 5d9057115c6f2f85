/**
 * Every knob of the HTTP benchmarks, read once from the environment (docs/benchmarks.md lists
 * them). `BENCH_QUICK=1` is a smoke run: short rounds, to prove the harness works end to end;
 * its numbers mean nothing.
 */
export const METERING_VARIANTS = ['off', 'memory', 'redis'] as const;
export type MeteringVariant = (typeof METERING_VARIANTS)[number];
const GRPC_TRANSPORTS = ['h2', 'grpc-js'] as const;
export type GrpcTransportChoice = (typeof GRPC_TRANSPORTS)[number];

export interface BenchSettings {
  quick: boolean;
  rounds: number;
  /** Measured seconds per subject and round. */
  roundSeconds: number;
  /** Unmeasured seconds before each measured window. */
  warmupSeconds: number;
  /** Concurrent requests of the balance scenarios. */
  concurrencies: number[];
  /** Concurrent requests of the auth/me scenario. */
  authConcurrency: number;
  /** Gateway variants, each a gateway process of its own; the first is the reference. */
  metering: MeteringVariant[];
  /**
   * The gateways' upstream gRPC transports (SUIGW_UPSTREAM_GRPC_TRANSPORT): one gateway per
   * metering variant and transport. Empty: one per variant, on the configuration's default.
   */
  transports: GrpcTransportChoice[];
  /** Also run the bare proxy on the `h2` transport, a second baseline beside the grpc-js one. */
  bareH2: boolean;
  /**
   * The bare baselines (REST proxies, gRPC forwarder) install the same Node 20 runtime fix as
   * every `suigw` process (services/core/async-resource-bind.ts); unset, they run Node as is.
   */
  bareLeanBind: boolean;
  redisUrl: string;
  /** The gateway's LOG_LEVEL: production's `info` unless told otherwise. */
  logLevel: string;
  /**
   * A second gRPC proxy per metering variant for A/B runs in the same rounds: another checkout
   * (`BENCH_GRPC_B_ROOT`, e.g. a worktree of main) and/or other Node flags
   * (`BENCH_GRPC_B_NODE_FLAGS`). Unset: no second proxy.
   */
  grpcB: { root: string | undefined; nodeFlags: string[] } | undefined;
}

function list(value: string): string[] {
  return value.split(',').map((item) => item.trim()).filter(Boolean);
}

function positive(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, not ${raw}`);
  return value;
}

export function readSettings(env: NodeJS.ProcessEnv = process.env): BenchSettings {
  const quick = env['BENCH_QUICK'] === '1';
  const metering = list(env['BENCH_METERING'] ?? 'redis,memory,off');
  for (const variant of metering) {
    if (!(METERING_VARIANTS as readonly string[]).includes(variant)) {
      throw new Error(`BENCH_METERING: ${variant} is not one of ${METERING_VARIANTS.join(', ')}`);
    }
  }
  if (metering.length === 0) throw new Error('BENCH_METERING names no variant');
  const transports = list(env['BENCH_GATEWAY_TRANSPORTS'] ?? '');
  for (const transport of transports) {
    if (!(GRPC_TRANSPORTS as readonly string[]).includes(transport)) {
      throw new Error(`BENCH_GATEWAY_TRANSPORTS: ${transport} is not one of ${GRPC_TRANSPORTS.join(', ')}`);
    }
  }
  return {
    quick,
    rounds: positive(env, 'BENCH_ROUNDS', quick ? 2 : 5),
    roundSeconds: positive(env, 'BENCH_ROUND_SECONDS', quick ? 2 : 10),
    warmupSeconds: positive(env, 'BENCH_WARMUP_SECONDS', quick ? 1 : 2),
    concurrencies: list(env['BENCH_CONCURRENCY'] ?? '1,16,64').map((value) => {
      const concurrency = Number(value);
      if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`BENCH_CONCURRENCY: ${value} is not a positive integer`);
      return concurrency;
    }),
    authConcurrency: positive(env, 'BENCH_AUTH_CONCURRENCY', 16),
    metering: metering as MeteringVariant[],
    transports: transports as GrpcTransportChoice[],
    bareH2: env['BENCH_BARE_H2'] === '1',
    bareLeanBind: env['BENCH_BARE_LEAN_BIND'] === '1',
    redisUrl: env['BENCH_REDIS_URL'] ?? 'redis://127.0.0.1:6379',
    logLevel: env['BENCH_LOG_LEVEL'] ?? 'info',
    grpcB: env['BENCH_GRPC_B_ROOT'] || env['BENCH_GRPC_B_NODE_FLAGS'] !== undefined
      ? { root: env['BENCH_GRPC_B_ROOT'] || undefined, nodeFlags: (env['BENCH_GRPC_B_NODE_FLAGS'] ?? '').split(' ').filter(Boolean) }
      : undefined,
  };
}

export function describeSettings(settings: BenchSettings): string {
  return (
    `${settings.rounds} rounds × ${settings.roundSeconds} s per subject (after ${settings.warmupSeconds} s warm-up each), rotated order; ` +
    `gateway LOG_LEVEL=${settings.logLevel}, key cache TTL default` +
    (settings.quick ? '\nBENCH_QUICK=1: a smoke run, the numbers mean nothing' : '')
  );
}
