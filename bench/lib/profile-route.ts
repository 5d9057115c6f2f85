/**
 * One route under load, alone, for profiling: starts the benchmark stack (BENCH_METERING's first
 * variant is the gateway), loads one route for BENCH_ROUND_SECONDS at BENCH_AUTH_CONCURRENCY
 * with h2load after one warm-up pass, and prints the requests served (profile-summary.ts's
 * `--requests`) and the server's CPU µs per request. Pair with BENCH_GATEWAY_NODE_FLAGS /
 * BENCH_BARE_NODE_FLAGS=`--cpu-prof --cpu-prof-dir=DIR`: that process's profile then holds one
 * route's requests only.
 *
 * `node bin/run-ts.js bench/lib/profile-route.ts hello|noop|me|balance|jsonrpc-balance|bare-h2-balance`
 * (`jsonrpc-balance`: `suix_getBalance` of the same account's SUI, the body posted from a file;
 * `bare-h2-balance`: the bare proxy on our `h2` transport, with BENCH_BARE_H2=1).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { h2load } from './h2load.js';
import { readSettings } from './settings.js';
import { startBenchStack } from './stack.js';

/** CPU µs of each thread of a process by thread name (main thread, libuv pool, V8 helpers). */
function threadCpu(pid: number): Map<string, number> {
  const byName = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    const name = tid === String(pid) ? 'main' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    byName.set(name, (byName.get(name) ?? 0) + (Number(fields[11]) + Number(fields[12])) * 10_000);
  }
  return byName;
}

const route = process.argv[2];
const settings = readSettings();
const stack = await startBenchStack(settings);
const directory = mkdtempSync(join(tmpdir(), 'suigw-profile-'));
try {
  const [gateway] = stack.gateways;
  const key = { 'x-api-key': stack.apiKey };
  const getBalanceBody = join(directory, 'get-balance.json');
  writeFileSync(getBalanceBody, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'suix_getBalance', params: [stack.simnet.ready.owner, '0x2::sui::SUI'] }));
  const targets = {
    hello: { server: stack.bare, url: `${stack.bare.ready.url}/hello`, headers: {} },
    noop: { server: gateway!, url: `${gateway!.ready.url}/bench/noop`, headers: {} },
    me: { server: gateway!, url: `${gateway!.ready.url}/mainnet/v1/auth/me`, headers: key },
    balance: { server: gateway!, url: `${gateway!.ready.url}/mainnet/v1/accounts/${stack.simnet.ready.owner}/balance`, headers: key },
    ...(stack.bareH2 ? { 'bare-h2-balance': { server: stack.bareH2, url: `${stack.bareH2.ready.url}/balance/${stack.simnet.ready.owner}`, headers: {} } } : {}),
    'jsonrpc-balance': { server: gateway!, url: `${gateway!.ready.url}/mainnet/v1/jsonrpc`, headers: { ...key, 'content-type': 'application/json' }, bodyFile: getBalanceBody },
  };
  const target = targets[route as keyof typeof targets];
  if (!target) throw new Error(`usage: profile-route.ts ${Object.keys(targets).join('|')}`);
  const shape = { connections: settings.authConcurrency, streamsPerConnection: 1, warmupSeconds: 0 };
  const load = { url: target.url, http1: true, headers: target.headers, ...('bodyFile' in target ? { bodyFile: target.bodyFile } : {}) };
  const warm = await h2load(load, { ...shape, durationSeconds: settings.warmupSeconds });
  const before = { at: performance.now(), cpu: target.server.cpuMicros(), threads: threadCpu(target.server.pid) };
  const run = await h2load(load, { ...shape, durationSeconds: settings.roundSeconds });
  const perRequest = (micros: number) => Math.round((10 * micros) / ((performance.now() - before.at) / 1e3) / run.rps) / 10;
  const threads = Object.fromEntries([...threadCpu(target.server.pid)].map(([name, micros]) => [name, perRequest(micros - (before.threads.get(name) ?? 0))]).filter(([, v]) => v !== 0));
  console.log(JSON.stringify({ route, served: warm.requests + run.requests + 1, rps: run.rps, cpuMicrosPerRequest: perRequest(target.server.cpuMicros() - before.cpu), threads, failures: warm.failures + run.failures }));
} finally {
  rmSync(directory, { recursive: true, force: true });
  await stack.stop();
}
