import { benchRestBalance } from './rest-balance.js';

/** `npm run bench`: gateway overhead as ratios against calling the upstream directly. */
const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=') as [string, string]));
const result = await benchRestBalance({
  concurrency: Number(args.get('concurrency') ?? 16),
  roundMs: Number(args.get('round-ms') ?? 3_000),
  rounds: Number(args.get('rounds') ?? 3),
  warmupMs: Number(args.get('warmup-ms') ?? 1_500),
});
const f = (n: number) => n.toFixed(2);
console.log(`\n${result.name} (concurrency ${result.concurrency})`);
console.log(`  direct gRPC  ${f(result.direct.rps)} req/s  p50 ${f(result.direct.p50)} ms  p99 ${f(result.direct.p99)} ms  errors ${result.direct.errors}`);
console.log(`  gateway REST ${f(result.gateway.rps)} req/s  p50 ${f(result.gateway.p50)} ms  p99 ${f(result.gateway.p99)} ms  errors ${result.gateway.errors}`);
console.log(`  throughput ratio (gateway/direct) ${f(result.throughputRatio)}; added p50 ${f(result.addedP50Ms)} ms; added p99 ${f(result.addedP99Ms)} ms`);
console.log(JSON.stringify(result));
process.exit(0);
