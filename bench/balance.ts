/**
 * `GET /mainnet/v1/accounts/{address}/balance` through the gateway against two baselines
 * measured in the same run, at several concurrencies (BENCH_CONCURRENCY, default 1,16,64):
 * - bare: plain fastify making the same `stateService.listBalances` call over the same native
 *   gRPC transport (bench/lib/bare-proxy.ts): the price of everything the gateway adds;
 * - direct: the same ListBalances call sent by the load generator straight to simnet (h2c,
 *   one connection with as many concurrent streams as the gateway's own upstream channel
 *   carries): what the upstream alone can serve.
 * simnet, every gateway variant (BENCH_METERING), the bare proxy and h2load each run in a
 * process of their own; see docs/benchmarks.md.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { assertGrpcCallSucceeds, GRPC_HEADERS, LIST_BALANCES_PATH, listBalancesFrame } from './lib/grpc-frame.js';
import { printComparisons, printSubjects, warnOnFailures } from './lib/report.js';
import { compare, interleavedRounds, type Comparison, type Subject, type SubjectResult } from './lib/rounds.js';
import { describeSettings, readSettings, type MeteringVariant } from './lib/settings.js';
import { startBenchStack, type BenchStack } from './lib/stack.js';

const overHttp1 = (concurrency: number) => ({ connections: concurrency, streamsPerConnection: 1 });
const overOneHttp2Connection = (concurrency: number) => ({ connections: 1, streamsPerConnection: concurrency });

function balanceSubjects(stack: BenchStack, frameFile: string): Subject[] {
  const { owner, grpcUrl } = stack.simnet.ready;
  return [
    {
      name: 'bare fastify proxy',
      target: { url: `${stack.bare.ready.url}/balance/${owner}`, http1: true },
      shape: overHttp1,
      server: stack.bare,
      upstream: stack.simnet,
    },
    {
      name: 'direct gRPC to simnet',
      target: { url: `${grpcUrl}${LIST_BALANCES_PATH}`, http1: false, headers: GRPC_HEADERS, bodyFile: frameFile },
      shape: overOneHttp2Connection,
      server: stack.simnet,
    },
    ...[...stack.gateways, ...(stack.compareGateway ? [stack.compareGateway] : [])].map((gateway) => ({
      name: gateway === stack.compareGateway ? `compared (${gateway.variant})` : `gateway (${gateway.variant})`,
      target: { url: `${gateway.ready.url}/mainnet/v1/accounts/${owner}/balance`, http1: true, headers: { 'x-api-key': stack.apiKey } },
      shape: overHttp1,
      server: gateway,
      upstream: stack.simnet,
    })),
  ];
}

/**
 * gateway/bare and gateway/direct per variant, then metering's cost: each variant against the
 * one without metering (or Redis against in-memory when there is none).
 */
function balanceComparisons(results: SubjectResult[], variants: readonly MeteringVariant[]): Comparison[] {
  const [bare, direct, ...rest] = results as [SubjectResult, SubjectResult, ...SubjectResult[]];
  // BENCH_COMPARE_TREE: the other checkout's gateway is the last subject.
  const gateways = rest.slice(0, variants.length);
  const [compared] = rest.slice(variants.length);
  const gateway = (variant: MeteringVariant) => gateways[variants.indexOf(variant)];
  const comparisons = [compare('bare / direct', bare, direct)];
  for (const g of [...gateways, ...(compared ? [compared] : [])]) {
    comparisons.push(compare(`${g.subject.name} / bare`, g, bare), compare(`${g.subject.name} / direct`, g, direct));
  }
  if (compared) comparisons.push(compare(`${gateways[0]!.subject.name} / ${compared.subject.name}`, gateways[0]!, compared));
  const [off, memory, redis] = [gateway('off'), gateway('memory'), gateway('redis')];
  if (off) {
    for (const on of [redis, memory]) if (on) comparisons.push(compare(`${on.subject.name} / ${off.subject.name}`, on, off));
  } else if (redis && memory) {
    comparisons.push(compare(`${redis.subject.name} / ${memory.subject.name}`, redis, memory));
  }
  return comparisons;
}

async function checkSubjects(stack: BenchStack, subjects: Subject[], frame: Buffer): Promise<void> {
  await assertGrpcCallSucceeds(stack.simnet.ready.grpcUrl, LIST_BALANCES_PATH, frame);
  for (const subject of subjects.filter((s) => s.target.http1)) {
    const response = await fetch(subject.target.url, { headers: subject.target.headers ?? {} });
    if (!response.ok) throw new Error(`${subject.name}: ${subject.target.url} answered ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
  }
}

export default async function benchBalance(): Promise<void> {
  const settings = readSettings();
  console.log(`balance route: ${describeSettings(settings)}`);
  const stack = await startBenchStack(settings);
  const directory = await mkdtemp(join(tmpdir(), 'suigw-bench-'));
  try {
    const frame = listBalancesFrame(stack.simnet.ready.owner);
    const frameFile = join(directory, 'list-balances.grpc');
    await writeFile(frameFile, frame);
    const subjects = balanceSubjects(stack, frameFile);
    await checkSubjects(stack, subjects, frame);
    for (const concurrency of settings.concurrencies) {
      const results = await interleavedRounds(subjects, {
        concurrency,
        rounds: settings.rounds,
        durationSeconds: settings.roundSeconds,
        warmupSeconds: settings.warmupSeconds,
      });
      console.log(`\nbalance, concurrency ${concurrency} (medians over ${settings.rounds} rounds)`);
      printSubjects(results);
      console.log('');
      printComparisons(balanceComparisons(results, settings.metering));
      warnOnFailures(results);
    }
    console.log(`\ngateway log written: ${(stack.loggedBytes() / 1e6).toFixed(1)} MB at LOG_LEVEL=${settings.logLevel}`);
  } finally {
    await rm(directory, { recursive: true, force: true });
    await stack.stop();
  }
}

// `node bin/run-ts.js bench/balance.ts` runs this benchmark alone.
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await benchBalance();
