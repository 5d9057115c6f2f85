/**
 * `GET /mainnet/v1/accounts/{address}/balance` through the gateway against two baselines
 * measured in the same run, at several concurrencies (BENCH_CONCURRENCY, default 1,16,64):
 * - bare: plain fastify making the same `stateService.listBalances` call over the SDK's grpc-js
 *   transport (bench/lib/bare-proxy.ts): the price of everything the gateway adds; with
 *   BENCH_BARE_H2=1 a second bare process on our `h2` transport, so a gateway on `h2` can be
 *   priced against a baseline with the same transport too;
 * - direct: the same ListBalances call sent by the load generator straight to simnet (h2c,
 *   one connection with as many concurrent streams as the gateway's own upstream channel
 *   carries): what the upstream alone can serve.
 * simnet, every gateway variant (BENCH_METERING × BENCH_GATEWAY_TRANSPORTS), the bare proxies
 * and h2load each run in a process of their own; see docs/benchmarks.md.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { assertGrpcCallSucceeds, GRPC_HEADERS, LIST_BALANCES_PATH, listBalancesFrame } from './lib/grpc-frame.js';
import { printComparisons, printSubjects, warnOnFailures } from './lib/report.js';
import { compare, interleavedRounds, type Comparison, type Subject, type SubjectResult } from './lib/rounds.js';
import { describeSettings, readSettings, type MeteringVariant } from './lib/settings.js';
import { startBenchStack, type BenchStack, type GatewayProcess } from './lib/stack.js';

const overHttp1 = (concurrency: number) => ({ connections: concurrency, streamsPerConnection: 1 });
const overOneHttp2Connection = (concurrency: number) => ({ connections: 1, streamsPerConnection: concurrency });

const BARE = 'bare fastify proxy (grpc-js)';
const BARE_H2 = 'bare fastify proxy (h2)';
const DIRECT = 'direct gRPC to simnet';

function balanceSubjects(stack: BenchStack, frameFile: string): Subject[] {
  const { owner, grpcUrl } = stack.simnet.ready;
  const bare = (name: string, server: BenchStack['bare']): Subject =>
    ({ name, target: { url: `${server.ready.url}/balance/${owner}`, http1: true }, shape: overHttp1, server, upstream: stack.simnet });
  return [
    bare(BARE, stack.bare),
    ...(stack.bareH2 ? [bare(BARE_H2, stack.bareH2)] : []),
    {
      name: DIRECT,
      target: { url: `${grpcUrl}${LIST_BALANCES_PATH}`, http1: false, headers: GRPC_HEADERS, bodyFile: frameFile },
      shape: overOneHttp2Connection,
      server: stack.simnet,
    },
    ...[...stack.gateways, ...(stack.compareGateway ? [stack.compareGateway] : [])].map((gateway) => ({
      name: gateway === stack.compareGateway ? `compared (${gateway.variant})` : gateway.label,
      target: { url: `${gateway.ready.url}/mainnet/v1/accounts/${owner}/balance`, http1: true, headers: { 'x-api-key': stack.apiKey } },
      shape: overHttp1,
      server: gateway,
      upstream: stack.simnet,
    })),
  ];
}

/**
 * Each gateway against each bare baseline and direct; metering's cost (each variant against the
 * one without metering, or Redis against in-memory when there is none) per transport; and, when
 * both transports ran, h2 against grpc-js per metering variant.
 */
function balanceComparisons(results: SubjectResult[], gateways: readonly GatewayProcess[]): Comparison[] {
  const named = (name: string) => results.find((r) => r.subject.name === name);
  const bare = named(BARE)!;
  const bareH2 = named(BARE_H2);
  const direct = named(DIRECT)!;
  const comparisons = [compare('bare / direct', bare, direct)];
  if (bareH2) comparisons.push(compare('bare (h2) / bare (grpc-js)', bareH2, bare));
  const resultOf = (variant: MeteringVariant, transport: GatewayProcess['transport']) => {
    const gateway = gateways.find((g) => g.variant === variant && g.transport === transport);
    return gateway && named(gateway.label);
  };
  for (const gateway of gateways) {
    const g = named(gateway.label)!;
    comparisons.push(compare(`${gateway.label} / bare (grpc-js)`, g, bare));
    if (bareH2) comparisons.push(compare(`${gateway.label} / bare (h2)`, g, bareH2));
    comparisons.push(compare(`${gateway.label} / direct`, g, direct));
  }
  for (const transport of new Set(gateways.map((g) => g.transport))) {
    const [off, memory, redis] = (['off', 'memory', 'redis'] as const).map((variant) => resultOf(variant, transport));
    if (off) {
      for (const on of [redis, memory]) if (on) comparisons.push(compare(`${on.subject.name} / ${off.subject.name}`, on, off));
    } else if (redis && memory) {
      comparisons.push(compare(`${redis.subject.name} / ${memory.subject.name}`, redis, memory));
    }
  }
  for (const variant of new Set(gateways.map((g) => g.variant))) {
    const [h2, grpcJs] = [resultOf(variant, 'h2'), resultOf(variant, 'grpc-js')];
    if (h2 && grpcJs) comparisons.push(compare(`${h2.subject.name} / ${grpcJs.subject.name}`, h2, grpcJs));
  }
  // BENCH_COMPARE_TREE: the other checkout's gateway, against the bare baselines and this tree's first gateway.
  const compared = results.find((r) => r.subject.name.startsWith('compared ('));
  if (compared) {
    comparisons.push(compare(`${compared.subject.name} / bare (grpc-js)`, compared, bare));
    const first = named(gateways[0]!.label)!;
    comparisons.push(compare(`${first.subject.name} / ${compared.subject.name}`, first, compared));
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
      printComparisons(balanceComparisons(results, stack.gateways));
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
