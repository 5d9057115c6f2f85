import cluster from 'node:cluster';
import { createLogger, installLeanAsyncResourceBind, PortInUseError } from '../core/index.js';
import { readConfig } from './runtime.js';
import { isWorkerRole, runRolePrimary, workerCount, WorkersRefused } from './workers.js';

// Every role's module is loaded when that role runs, never before: a role (and `--help`) pays only
// for its own dependencies (docs/benchmarks.md, start-up per role).
// `options`: the role's command line after its name, shown by `suigw <role> --help` (which runs
// nothing); `[]` means the role takes none (its settings are environment variables) and refuses
// any. Roles without `options` (admin, operator) print their own help.
// `settings`: where the role's settings come from, when not the environment (simnet reads none).
const ROLES: Record<string, { about: string; options?: string[]; settings?: string; run?: (argv: string[]) => Promise<void> }> = {
  dev: { about: 'every role in one process, embedded database, seeded admin key', options: ['[--state-file PATH]'], run: async (argv) => (await import('./dev.js')).runDev(argv) },
  gateway: { about: 'HTTP: /v1 REST, management, health, OpenAPI', options: [], run: async () => (await import('./gateway.js')).runGateway() },
  migrate: { about: 'apply database migrations and exit', options: [], run: async () => (await import('./migrate.js')).runMigrate() },
  admin: { about: 'operator tasks: create-org, grant, card-subscription', run: async (argv) => (await import('./admin.js')).runAdmin(argv) },
  simnet: {
    about: 'a deterministic simulated Sui network: v2 gRPC + gRPC-Web, GraphQL, faucet (tests, offline dev)',
    options: ['[--grpc-port 9000] [--http-port 9100] [--host 127.0.0.1] [--seed dev]', '[--checkpoint-interval-ms 250] [--transactions-per-checkpoint N]'],
    settings: 'Settings are the options above; simnet reads no environment variable.',
    run: async (argv) => (await import('../simnet/index.js')).runSimnetCli(argv),
  },
  grpc: { about: 'gRPC and gRPC-Web proxy to the Sui v2 services, one port (SUIGW_GRPC_PORT), network by host', options: [], run: async () => (await import('./grpc.js')).runGrpc() },
  authz: { about: 'Envoy ext_authz service (envoy.service.auth.v3.Authorization), --port (default 9001)', options: ['[--port 9001]'], run: async (argv) => (await import('./envoy-services.js')).runAuthz(argv) },
  ratelimit: { about: 'Envoy global rate limit service (envoy.service.ratelimit.v3), --port (default 9002)', options: ['[--port 9002]'], run: async (argv) => (await import('./envoy-services.js')).runRateLimit(argv) },
  streams: { about: 'checkpoint ingest and Warp stream delivery (WebSocket, SSE); shares Redis with its replicas', options: [], run: async () => (await import('./streams.js')).runStreams() },
  billing: { about: 'one pass over due on-chain charges, retries, reminders and emails, then exit (exit codes: docs/billing.md)', options: [], run: async () => (await import('./billing.js')).runBilling() },
  operator: {
    about: 'Kubernetes operator: suigw.io custom resources → keys, projects, stream workers, billing CronJobs; serves Envoy over ADS (--xds-port, default 18000)',
    run: async (argv) => (await import('./operator.js')).runOperator(argv),
  },
};

/** `suigw <role> --help`: what the role does, its command line and where its settings come from. */
function roleUsage(role: string, options: readonly string[]): string {
  const line = [`usage: suigw ${role}`, ...(isWorkerRole(role) ? ['[--workers N]'] : []), ...options.slice(0, 1)].join(' ');
  return [
    line,
    ...options.slice(1).map((more) => `${' '.repeat(`usage: suigw ${role} `.length)}${more}`),
    '',
    `  ${ROLES[role]!.about}`,
    '',
    `  ${ROLES[role]!.settings ?? 'Settings are environment variables, validated at start-up (README.md, Configuration).'}`,
  ].join('\n');
}

function usage(): string {
  const width = Math.max(...Object.keys(ROLES).map((r) => r.length));
  return ['usage: suigw <role> [options]', '', ...Object.entries(ROLES).map(([r, { about }]) => `  ${r.padEnd(width)}  ${about}`)].join('\n');
}

export async function main(argv: string[]): Promise<void> {
  const [role, ...rest] = argv;
  // Before any role makes an HTTP/2 request: Node 20 pays ~9 µs per request for a deprecated property.
  installLeanAsyncResourceBind();
  if (role === undefined || role === '--help' || role === '-h' || role === 'help') {
    console.log(usage());
    return;
  }
  const entry = ROLES[role];
  if (!entry) {
    console.error(`unknown role '${role}'\n\n${usage()}`);
    process.exit(2);
  }
  if (!entry.run) {
    console.error(`suigw ${role}: this role is not built yet (see the open issues).`);
    process.exit(2);
  }
  if (entry.options !== undefined && (rest.includes('--help') || rest.includes('-h'))) {
    console.log(roleUsage(role, entry.options));
    return;
  }
  try {
    const { workers, others } = isWorkerRole(role) ? takeWorkersFlag(rest) : { workers: undefined, others: rest };
    const roleArgs = others;
    // A role that takes no options would otherwise ignore them (`gateway --port 9000` listening on PORT).
    if (entry.options?.length === 0 && roleArgs.length > 0) {
      console.error(`suigw ${role}: unexpected argument '${roleArgs[0]}'; this role's settings are environment variables (suigw ${role} --help)`);
      process.exit(2);
    }
    if (isWorkerRole(role)) {
      if (cluster.isPrimary) {
        const config = readConfig(workers === undefined ? {} : { SUIGW_WORKERS: workers });
        const count = workerCount(role, config);
        if (count > 1) {
          await runRolePrimary(role, count, config, createLogger(config.logLevel));
          return;
        }
      }
    }
    await entry.run(roleArgs);
  } catch (error) {
    if (!(error instanceof PortInUseError) && !(error instanceof WorkersRefused) && !isArgumentError(error)) throw error;
    console.error(`suigw ${role}: ${(error as Error).message}`);
    process.exit(2);
  }
}

/** node:util parseArgs' refusals (an unknown option, a missing value): a usage error, not a crash. */
function isArgumentError(error: unknown): error is Error {
  const code = (error as { code?: unknown } | undefined)?.code;
  return error instanceof Error && typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_');
}

/** `--workers N` (or `--workers=N`), which overrides SUIGW_WORKERS; the role's own options are the rest. */
function takeWorkersFlag(argv: string[]): { workers: string | undefined; others: string[] } {
  const others: string[] = [];
  let workers: string | undefined;
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index]!;
    if (arg === '--workers') workers = argv[(index += 1)] ?? '';
    else if (arg.startsWith('--workers=')) workers = arg.slice('--workers='.length);
    else others.push(arg);
  }
  return { workers, others };
}
