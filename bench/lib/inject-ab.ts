/**
 * This checkout's gateway against another's (BENCH_COMPARE_TREE), in one process, through
 * `app.inject()`: CPU µs per request of the gateway's own per-request work (routing, hooks,
 * authentication, metering, serialization), without sockets, h2load or other processes. Both
 * apps share the process, the machine's load and the Redis/PostgreSQL behind them; their rounds
 * alternate (A B B A …), each round `BENCH_INJECT_REQUESTS` requests kept 16 in flight, and the
 * figure is the median over `BENCH_ROUNDS` rounds of process CPU time ÷ requests. The request
 * injection itself (light-my-request) is in both figures alike. Requests queued inside
 * `inject` are not slow requests, nor a lagging event loop: the slow-request log is set out of
 * reach and load shedding off (16 injections in flight keep the loop busy by design).
 *
 * `BENCH_COMPARE_TREE=DIR node bin/run-ts.js bench/lib/inject-ab.ts noop|me [REDIS_URL|memory]`
 * (metering on Redis by default; `memory`: the in-memory limiter)
 * DIR needs this file's neighbours `inject-app.ts` and `bench-noop.ts` (copy them in).
 */
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createBenchTenant } from './bench-tenant.js';
import { cleanEnvironment } from './stack.js';
import { median } from './stats.js';
import type { buildInjectableGateway, InjectableGateway } from './inject-app.js';

const route = process.argv[2];
const metering = process.argv[3] ?? 'redis://127.0.0.1:6379';
const otherTree = process.env['BENCH_COMPARE_TREE'];
if ((route !== 'noop' && route !== 'me') || !otherTree) throw new Error('usage: BENCH_COMPARE_TREE=DIR inject-ab.ts noop|me [REDIS_URL|memory]');
const rounds = Number(process.env['BENCH_ROUNDS'] ?? 20);
const perRound = Number(process.env['BENCH_INJECT_REQUESTS'] ?? 4000);
const CONCURRENCY = 16;

const tenant = await createBenchTenant();
const gateways: { name: string; gateway: InjectableGateway }[] = [];
try {
  const env = { ...cleanEnvironment(), DATABASE_URL: tenant.databaseUrl, ...(metering === 'memory' ? {} : { REDIS_URL: metering }), SUIGW_SECRET: randomBytes(32).toString('hex'), LOG_LEVEL: 'info', SUIGW_LOG_SLOW_MS: '60000', SUIGW_SHED_MAX_EVENT_LOOP_DELAY_MS: '0' };
  for (const [name, root] of [['this tree', resolve('.')], ['compared', resolve(otherTree)]] as const) {
    const module = (await import(pathToFileURL(join(root, 'bench/lib/inject-app.ts')).href)) as { buildInjectableGateway: typeof buildInjectableGateway };
    gateways.push({ name, gateway: await module.buildInjectableGateway(env) });
  }
  const request = route === 'noop'
    ? { method: 'GET' as const, url: '/bench/noop' }
    : { method: 'GET' as const, url: '/mainnet/v1/auth/me', headers: { 'x-api-key': tenant.apiKey } };
  const run = async ({ gateway }: { gateway: InjectableGateway }, count: number): Promise<number> => {
    const start = process.cpuUsage();
    let sent = 0;
    const worker = async () => {
      while (sent < count) {
        sent += 1;
        const response = await gateway.app.inject(request);
        if (response.statusCode !== 200) throw new Error(`${request.url}: ${response.statusCode} ${response.body}`);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const used = process.cpuUsage(start);
    return (used.user + used.system) / count;
  };
  for (const entry of gateways) await run(entry, perRound);
  const samples = gateways.map(() => [] as number[]);
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    for (const i of order) samples[i]!.push(await run(gateways[i]!, perRound));
  }
  const ratios = samples[0]!.map((value, i) => value / samples[1]![i]!);
  const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
  for (const [i, { name }] of gateways.entries()) {
    const values = sorted(samples[i]!);
    console.log(`${route} ${name}: ${median(values).toFixed(1)} µs CPU/request (min ${values[0]!.toFixed(1)}, max ${values.at(-1)!.toFixed(1)}; ${rounds} rounds × ${perRound})`);
  }
  const r = sorted(ratios);
  console.log(`${route} this tree / compared: ${median(r).toFixed(3)} (${r[0]!.toFixed(3)}..${r.at(-1)!.toFixed(3)})`);
} finally {
  for (const { gateway } of gateways) await gateway.close();
  await tenant.drop();
}
process.exit(0);
