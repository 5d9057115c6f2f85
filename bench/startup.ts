/**
 * Start-up time and resident memory of each role, from source (`node bin/suigw.js`: tsx compiles
 * the TypeScript as it loads) against the production build (`node dist/services/cli/suigw.js`,
 * plain node; `npm run build` first, here). Each start is a process of its own, measured from
 * spawn to the role's "listening" line (or to its exit for `migrate` and `--help`), its VmRSS
 * read at that moment; then SIGTERM, which must end it with 0. Interleaved rounds (the variant
 * that goes first alternates), medians with min..max, and the build ÷ source ratio per round.
 * BENCH_ROUNDS (default 5, BENCH_QUICK=1: 2).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { freePort } from '../test/support/processes.js';
import { createTestDatabase } from '../test/support/test-database.js';
import { printTable } from './lib/report.js';
import { measureStartup, type RoleLaunch, type StartupSample, type Variant } from './lib/role-startup.js';
import { spread, type Spread } from './lib/rounds.js';
import { readSettings } from './lib/settings.js';
import { startServiceProcess } from './lib/service-process.js';
import type { SimnetReady } from './lib/simnet-process.js';
import { cleanEnvironment } from './lib/stack.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const VARIANTS: readonly Variant[] = ['source', 'build'];

const listening = (msg: string) => new RegExp(`"msg":"${msg.replace(/[()]/g, '\\$&')}"`);

async function launches(env: NodeJS.ProcessEnv, simnetPorts: () => Promise<string[]>): Promise<RoleLaunch[]> {
  return [
    { role: '--help', args: [], env },
    { role: 'migrate', args: [], env },
    { role: 'gateway', args: [], env: { ...env, PORT: '0' }, ready: listening('gateway listening') },
    { role: 'grpc', args: [], env: { ...env, SUIGW_GRPC_PORT: String(await freePort()) }, ready: listening('grpc proxy listening') },
    { role: 'streams', args: [], env: { ...env, PORT: '0' }, ready: listening('streams listening') },
    { role: 'authz', args: ['--port', String(await freePort())], env, ready: listening('authz (ext_authz) listening') },
    { role: 'ratelimit', args: ['--port', String(await freePort())], env, ready: listening('ratelimit (RLS) listening') },
    { role: 'simnet', args: await simnetPorts(), env, ready: /faucet\s+\S+\/v2\/gas/ },
  ];
}

const ms = (s: Spread) => `${s.median.toFixed(0)} (${s.min.toFixed(0)}..${s.max.toFixed(0)})`;
const mb = (s: Spread) => (Number.isFinite(s.median) ? `${s.median.toFixed(0)} (${s.min.toFixed(0)}..${s.max.toFixed(0)})` : '-');
const ratio = (s: Spread) => (Number.isFinite(s.median) ? `${s.median.toFixed(2)} (${s.min.toFixed(2)}..${s.max.toFixed(2)})` : '-');

export default async function benchStartup(): Promise<void> {
  const settings = readSettings();
  console.log('startup: npm run build');
  execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  const tenant = await createTestDatabase();
  const simnet = await startServiceProcess<SimnetReady>({ name: 'simnet', script: 'bench/lib/simnet-process.ts', env: process.env, stdout: 'ignore' });
  try {
    const env: NodeJS.ProcessEnv = {
      ...cleanEnvironment(),
      DATABASE_URL: tenant.url,
      REDIS_URL: settings.redisUrl,
      SUIGW_REDIS_KEY_PREFIX: `bench-startup:${randomBytes(4).toString('hex')}:`,
      SUIGW_SECRET: randomBytes(32).toString('hex'),
      SUIGW_NETWORKS: 'mainnet',
      SUI_MAINNET_GRPC_URL: simnet.ready.grpcUrl,
      SUI_MAINNET_GRAPHQL_URL: simnet.ready.graphqlUrl,
      SUIGW_METRICS_PORT: 'off',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
    };
    const roles = await launches(env, async () => ['--grpc-port', String(await freePort()), '--http-port', String(await freePort()), '--seed', 'bench']);
    console.log(`startup: ${roles.length} roles × ${VARIANTS.length} variants × ${settings.rounds} rounds, one process per start (Node ${process.version})`);
    // One unmeasured start of each: the file system cache and tsx's compile cache warm, as on a
    // machine that has started the role before.
    for (const launch of roles) for (const variant of VARIANTS) await measureStartup(variant, launch);
    const samples = new Map<string, Record<Variant, StartupSample[]>>(roles.map((launch) => [launch.role, { source: [], build: [] }]));
    for (let round = 0; round < settings.rounds; round++) {
      for (const launch of roles) {
        const order = round % 2 === 0 ? VARIANTS : [...VARIANTS].reverse();
        for (const variant of order) samples.get(launch.role)![variant].push(await measureStartup(variant, launch));
      }
    }
    const rows = roles.map(({ role }) => {
      const { source, build } = samples.get(role)!;
      const perRound = (pick: (s: StartupSample) => number) => build.map((sample, round) => pick(sample) / pick(source[round]!));
      return [
        role,
        ms(spread(source.map((s) => s.startupMs))), ms(spread(build.map((s) => s.startupMs))), ratio(spread(perRound((s) => s.startupMs))),
        mb(spread(source.map((s) => s.rssMb))), mb(spread(build.map((s) => s.rssMb))), ratio(spread(perRound((s) => s.rssMb))),
      ];
    });
    printTable(['role', 'source ms', 'build ms', 'build÷source', 'source RSS MB', 'build RSS MB', 'build÷source'], rows);
  } finally {
    await simnet.stop();
    await tenant.drop();
  }
}
