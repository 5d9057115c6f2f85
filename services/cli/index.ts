import cluster from 'node:cluster';
import { createLogger, installLeanAsyncResourceBind, PortInUseError } from '../core/index.js';
import { readConfig } from './runtime.js';
import { isWorkerRole, runRolePrimary, workerCount, WorkersRefused } from './workers.js';

// Every role's module is loaded when that role runs, never before: a role (and `--help`) pays only
// for its own dependencies (docs/benchmarks.md, start-up per role).
const ROLES: Record<string, { about: string; run?: (argv: string[]) => Promise<void> }> = {
  dev: { about: 'every role in one process, embedded database, seeded admin key', run: async (argv) => (await import('./dev.js')).runDev(argv) },
  gateway: { about: 'HTTP: /v1 REST, management, health, OpenAPI', run: async () => (await import('./gateway.js')).runGateway() },
  migrate: { about: 'apply database migrations and exit', run: async () => (await import('./migrate.js')).runMigrate() },
  admin: { about: 'operator tasks: create-org, grant, card-subscription', run: async (argv) => (await import('./admin.js')).runAdmin(argv) },
  simnet: {
    about: 'a deterministic simulated Sui network: v2 gRPC + gRPC-Web, GraphQL, faucet (tests, offline dev)',
    run: async (argv) => (await import('../simnet/index.js')).runSimnetCli(argv),
  },
  grpc: { about: 'gRPC and gRPC-Web proxy to the Sui v2 services, one port (SUIGW_GRPC_PORT), network by host', run: async () => (await import('./grpc.js')).runGrpc() },
  authz: { about: 'Envoy ext_authz service (envoy.service.auth.v3.Authorization), --port (default 9001)', run: async (argv) => (await import('./envoy-services.js')).runAuthz(argv) },
  ratelimit: { about: 'Envoy global rate limit service (envoy.service.ratelimit.v3), --port (default 9002)', run: async (argv) => (await import('./envoy-services.js')).runRateLimit(argv) },
  streams: { about: 'checkpoint ingest and Warp stream delivery (WebSocket, SSE); shares Redis with its replicas', run: async () => (await import('./streams.js')).runStreams() },
  billing: { about: 'one pass over due on-chain charges, retries, reminders and emails, then exit (exit codes: docs/billing.md)', run: async () => (await import('./billing.js')).runBilling() },
  operator: {
    about: 'Kubernetes operator: suigw.io custom resources → keys, projects, stream workers, billing CronJobs; serves Envoy over ADS (--xds-port, default 18000)',
    run: async (argv) => (await import('./operator.js')).runOperator(argv),
  },
};

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
  try {
    let roleArgs = rest;
    if (isWorkerRole(role)) {
      const { workers, others } = takeWorkersFlag(rest);
      roleArgs = others;
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
    if (!(error instanceof PortInUseError) && !(error instanceof WorkersRefused)) throw error;
    console.error(`suigw ${role}: ${error.message}`);
    process.exit(2);
  }
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
