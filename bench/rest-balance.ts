import http from 'node:http';
import { createTestApp } from '../test/support/test-app.js';
import { SuiUpstream, defaultUpstreamPolicy } from '../services/upstream/index.js';
import { createGrpcTransport } from '../services/upstream/grpc-channel.js';
import { SuiGrpcClient } from '@mysten/sui/grpc';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { runLoad, summarize, type LoadResult } from './lib/stats.js';

export interface BalanceBenchOptions {
  concurrency: number;
  /** Length of each measured round; rounds alternate direct and gateway. */
  roundMs: number;
  rounds: number;
  warmupMs: number;
}

/**
 * `GET /v1/accounts/{a}/balance` through the gateway (auth with a cached key, validation,
 * ListBalances over native gRPC, cached coin metadata, response schema) against the same
 * ListBalances call made straight to simnet over native gRPC, in the same run (simnet runs in
 * its own process; the gateway and the load generator share this one).
 * Rounds alternate so drift (JIT, GC, simnet's growth) hits both sides alike.
 */
async function startSimnetProcess() {
  const child = spawn(process.execPath, ['bin/run-ts.js', 'bench/lib/simnet-process.ts'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const [line] = (await once(lines, 'line')) as [string];
  lines.close();
  const urls = JSON.parse(line) as { grpcUrl: string; graphqlUrl: string; owner: string };
  return {
    ...urls,
    async stop() {
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
    },
  };
}

export async function benchRestBalance(options: BalanceBenchOptions) {
  const simnet = await startSimnetProcess();
  const owner = simnet.owner;
  const upstream = new SuiUpstream({ network: 'mainnet', endpoints: { grpcUrl: simnet.grpcUrl, graphqlUrl: simnet.graphqlUrl }, policy: defaultUpstreamPolicy });
  // Production key-cache TTL (the test default of 0 would put a database read on every request).
  const gateway = await createTestApp({ env: { SUIGW_KEY_CACHE_TTL_MS: '3000' }, extra: { upstreams: new Map([['mainnet', upstream]]) } });
  const address = await gateway.app.listen({ port: 0, host: '127.0.0.1' });
  const url = new URL(`${address}/mainnet/v1/accounts/${owner}/balance`);
  // Keep-alive sockets, one per concurrent caller, as an SDK or a load balancer would hold.
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency });
  const viaGateway = () => new Promise<void>((resolve, reject) => {
    const request = http.get(url, { agent, headers: { 'x-api-key': gateway.adminKey } }, (response) => {
      response.resume();
      response.on('end', () => (response.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${response.statusCode}`))));
      response.on('error', reject);
    });
    request.on('error', reject);
  });
  const transport = createGrpcTransport(simnet.grpcUrl);
  const direct = new SuiGrpcClient({ network: 'mainnet', transport });
  const viaGrpc = async () => {
    await direct.stateService.listBalances({ owner, pageSize: 1000 }).response;
  };

  try {
    await runLoad(viaGrpc, options.concurrency, options.warmupMs);
    await runLoad(viaGateway, options.concurrency, options.warmupMs);
    const directRuns: LoadResult[] = [];
    const gatewayRuns: LoadResult[] = [];
    for (let round = 0; round < options.rounds; round += 1) {
      directRuns.push(await runLoad(viaGrpc, options.concurrency, options.roundMs));
      gatewayRuns.push(await runLoad(viaGateway, options.concurrency, options.roundMs));
    }
    const d = summarize(directRuns);
    const g = summarize(gatewayRuns);
    return {
      name: 'rest-balance',
      concurrency: options.concurrency,
      direct: d,
      gateway: g,
      throughputRatio: g.rps / d.rps,
      addedP50Ms: g.p50 - d.p50,
      addedP99Ms: g.p99 - d.p99,
    };
  } finally {
    agent.destroy();
    transport.close();
    await gateway.close();
    await upstream.close();
    await simnet.stop();
  }
}

/**
 * `npm run bench -- rest-balance`: BENCH_CONCURRENCY (16), BENCH_ROUND_MS (3000), BENCH_ROUNDS (3),
 * BENCH_WARMUP_MS (1500) tune it.
 */
export default async function run(): Promise<void> {
  const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
  for (const concurrency of [1, env('BENCH_CONCURRENCY', 16)]) {
    const result = await benchRestBalance({
      concurrency,
      roundMs: env('BENCH_ROUND_MS', 3_000),
      rounds: env('BENCH_ROUNDS', 3),
      warmupMs: env('BENCH_WARMUP_MS', 1_500),
    });
    const f = (n: number) => n.toFixed(2);
    console.log(`\n${result.name} (concurrency ${result.concurrency})`);
    console.log(`  direct gRPC  ${f(result.direct.rps)} req/s  p50 ${f(result.direct.p50)} ms  p99 ${f(result.direct.p99)} ms  errors ${result.direct.errors}`);
    console.log(`  gateway REST ${f(result.gateway.rps)} req/s  p50 ${f(result.gateway.p50)} ms  p99 ${f(result.gateway.p99)} ms  errors ${result.gateway.errors}`);
    console.log(`  throughput ratio (gateway/direct) ${f(result.throughputRatio)}; added p50 ${f(result.addedP50Ms)} ms; added p99 ${f(result.addedP99Ms)} ms`);
  }
}
