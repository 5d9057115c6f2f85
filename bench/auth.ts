/**
 * What API-key authentication costs (issue 2: "key verification adds under 1 ms at p99 on a
 * warm cache").
 *
 * 1. Over HTTP: a gateway in its own process on a real PostgreSQL test database, loaded by a
 *    closed-loop client (bench/lib/latency.ts) with the same request count and concurrency on
 *    three routes:
 *    - `GET /mainnet/v1/auth/me` with a key (authentication on a warm cache, default TTL);
 *    - `GET /bench/noop`: no key, no database, the same body and zod response schema as
 *      auth/me. This is the fair baseline: the difference to auth/me is authentication alone;
 *    - `GET /health`: the issue names it, but it is not a no-work route: it runs `select 1` on
 *      the database each time, so the auth/me : health ratio flatters authentication.
 * 2. In process: `Authenticator.authenticate` on a warm cache, timed call by call (µs).
 *
 * Prints numbers only; nothing here is a pass/fail test. Tune with BENCH_REQUESTS,
 * BENCH_CONNECTIONS, BENCH_ROUNDS and BENCH_CALLS.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadConfig, systemClock } from '../services/core/index.js';
import { createTestDatabase } from '../test/support/test-database.js';
import { Authenticator, createKey, createOrganization } from '../services/identity/index.js';
import { measureLatency } from './lib/latency.js';
import { percentile } from './lib/stats.js';

const REQUESTS = Number(process.env['BENCH_REQUESTS'] ?? 20_000);
const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 10);
const CALLS = Number(process.env['BENCH_CALLS'] ?? 200_000);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 5);

interface Load {
  name: string;
  rps: number;
  /** Microseconds. */
  p50: number;
  p99: number;
  non2xx: number;
}

async function load(name: string, url: string, headers: Record<string, string>, amount: number): Promise<Load> {
  const probe = await measureLatency(url, headers, amount, CONNECTIONS);
  return { name, rps: probe.rps, p50: percentile(probe.samples, 50), p99: percentile(probe.samples, 99), non2xx: probe.non2xx };
}

function median(loads: Load[]): Load {
  const mid = (pick: (l: Load) => number) => {
    const values = loads.map(pick).sort((x, y) => x - y);
    return values[Math.floor(values.length / 2)]!;
  };
  return {
    name: loads[0]!.name,
    rps: mid((l) => l.rps),
    p50: mid((l) => l.p50),
    p99: mid((l) => l.p99),
    non2xx: loads.reduce((sum, l) => sum + l.non2xx, 0),
  };
}

async function startGateway(databaseUrl: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['bin/run-ts.js', 'bench/lib/gateway-server.ts'], {
    env: { ...process.env, DATABASE_URL: databaseUrl },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolveLine, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', resolveLine);
    child.once('exit', (code) => reject(new Error(`the gateway exited with ${code}`)));
  });
  return { url: (JSON.parse(line) as { url: string }).url, child };
}

const fmt = (n: number, digits = 2) => n.toFixed(digits);
const signed = (n: number) => `${n >= 0 ? '+' : ''}${n.toFixed(0)}`;

export default async function benchAuth(): Promise<void> {
  const test = await createTestDatabase();
  let child: ChildProcess | undefined;
  try {
    const { organization, projects } = await createOrganization(test.database.db, systemClock, { name: 'Bench', tier: 'enterprise' });
    const key = await createKey(test.database, systemClock, { kind: 'operator' }, {
      organizationId: organization.id,
      projectId: projects[0]!.id,
      name: 'bench',
      scopes: ['data', 'manage'],
      expiresInDays: 1,
    });

    const gateway = await startGateway(test.url);
    child = gateway.child;
    const auth = { 'x-api-key': key.apiKey };
    const routes = [
      { name: 'GET /bench/noop (same body, no key)', url: `${gateway.url}/bench/noop`, headers: {} },
      { name: 'GET /health (no key, select 1)', url: `${gateway.url}/health`, headers: {} },
      { name: 'GET /mainnet/v1/auth/me (key)', url: `${gateway.url}/mainnet/v1/auth/me`, headers: auth },
    ];
    console.log(`HTTP: ${REQUESTS} requests per route and round, ${ROUNDS} rounds (medians shown), ${CONNECTIONS} connections, gateway in its own process, PostgreSQL, key cache TTL default (${loadConfig({}).keyCacheTtlMs} ms)`);
    // Warm up the JIT, the pools and the key cache.
    for (const route of routes) await load(route.name, route.url, route.headers, Math.min(5_000, REQUESTS));
    // Rounds interleave the routes so that drift (GC, a neighbour's load) hits all three alike;
    // each figure below is the median over the rounds.
    const runs: Load[][] = routes.map(() => []);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, route] of routes.entries()) runs[i]!.push(await load(route.name, route.url, route.headers, REQUESTS));
    }
    const results = runs.map(median);

    console.log('');
    console.log(`${'route'.padEnd(36)} ${'req/s'.padStart(8)} ${'p50 µs'.padStart(8)} ${'p99 µs'.padStart(8)} ${'non-2xx'.padStart(8)}`);
    for (const r of results) {
      console.log(`${r.name.padEnd(36)} ${fmt(r.rps, 0).padStart(8)} ${fmt(r.p50, 0).padStart(8)} ${fmt(r.p99, 0).padStart(8)} ${String(r.non2xx).padStart(8)}`);
    }
    const [noop, health, me] = results as [Load, Load, Load];
    const compare = (base: Load) =>
      `throughput ratio ${fmt(me.rps / base.rps)} ; p50 ${signed(me.p50 - base.p50)} µs ; p99 ${signed(me.p99 - base.p99)} µs`;
    console.log('');
    console.log(`auth/me vs noop   : ${compare(noop)}   <- what authentication adds`);
    console.log(`auth/me vs health : ${compare(health)}`);
    if (results.some((r) => r.non2xx > 0)) console.log('WARNING: some responses were not 2xx; the numbers above are not comparable.');

    // In process: the authenticator alone on a warm cache. A long TTL keeps every call cached,
    // which is what "warm" means; the HTTP run above uses the default TTL, as deployed.
    const authenticator = new Authenticator({ database: test.database, clock: systemClock, ttlMs: 60_000 });
    const access = { network: 'mainnet' as const, scope: 'manage' as const, origin: undefined };
    for (let i = 0; i < 20_000; i++) await authenticator.authenticate(key.apiKey, access);
    const samples = new Float64Array(CALLS);
    for (let i = 0; i < CALLS; i++) {
      const start = process.hrtime.bigint();
      await authenticator.authenticate(key.apiKey, access);
      samples[i] = Number(process.hrtime.bigint() - start) / 1_000;
    }
    samples.sort();
    console.log('');
    console.log(
      `Authenticator.authenticate, warm cache, ${CALLS} calls: p50 ${fmt(percentile(samples, 50))} µs, p99 ${fmt(percentile(samples, 99))} µs, ` +
        `p99.9 ${fmt(percentile(samples, 99.9))} µs, max ${fmt(samples[samples.length - 1]!)} µs`,
    );
    const p99 = percentile(samples, 99);
    console.log(`key verification p99 ${fmt(p99 / 1000, 4)} ms: ${p99 < 1000 ? 'under' : 'NOT under'} the 1 ms budget`);
  } finally {
    if (child && child.exitCode === null) {
      const exited = new Promise((done) => child!.once('exit', done));
      child.kill('SIGTERM');
      await exited;
    }
    await test.drop();
  }
}

// `node bin/run-ts.js bench/auth.ts` runs this benchmark alone.
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await benchAuth();
