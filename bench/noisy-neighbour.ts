/**
 * Noisy neighbour, JSON-RPC subscription filters (issue 19's first surface): a victim
 * organization's latency and rate with and without an attacker organization holding the most
 * subscriptions its filter limits allow (bench/lib/noisy-subscriber.ts: sockets of never-matching
 * event filters of 100 distinct types each), while simnet produces transactions with events.
 *
 * Every party is a process of its own: simnet (BENCH_SIMNET_TRANSACTIONS_PER_CHECKPOINT, 4 here),
 * one gateway (the first BENCH_METERING variant), the attacker, h2load for the victim
 * (`GET /mainnet/v1/auth/me` with the victim's key, BENCH_AUTH_CONCURRENCY). Rounds interleave
 * "alone" and "attacked" in rotated order; the ratio attacked ÷ alone is taken within a round.
 * With BENCH_COMPARE_TREE, another checkout's gateway gets the same attack in the same rounds.
 * Goal (issue 19): victim rps ratio ≥ 0.8. Prints numbers only; not a pass/fail test.
 *
 * Not covered yet: REST, GraphQL, gRPC, Warp and webhook attackers (see docs/benchmarks.md).
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { h2load, type LoadRun } from './lib/h2load.js';
import type { NoisyReady, NoisyReport } from './lib/noisy-subscriber.js';
import { printTable } from './lib/report.js';
import { startServiceProcess, type ServiceProcess } from './lib/service-process.js';
import { describeSettings, readSettings } from './lib/settings.js';
import { cleanEnvironment, startBenchStack, type GatewayProcess } from './lib/stack.js';
import { median } from './lib/stats.js';

interface Target {
  label: string;
  gateway: GatewayProcess;
  attacker: ServiceProcess<NoisyReady>;
  runs: { alone: LoadRun; attacked: LoadRun }[];
}

export default async function benchNoisyNeighbour(): Promise<void> {
  const all = readSettings();
  const settings = { ...all, metering: all.metering.slice(0, 1) };
  console.log(`noisy neighbour (JSON-RPC subscription filters): ${describeSettings(settings)}`);
  process.env['BENCH_SIMNET_TRANSACTIONS_PER_CHECKPOINT'] ??= '4';
  const stack = await startBenchStack(settings);
  const targets: Target[] = [];
  try {
    // BENCH_COMPARE_TREE: the same attack on another checkout's gateway (e.g. before issue 19), in the same rounds.
    const gateways = [stack.gateways[0]!, ...(stack.compareGateway ? [stack.compareGateway] : [])];
    for (const gateway of gateways) {
      const attacker = await startServiceProcess<NoisyReady>({
        name: `noisy subscriber (${gateway.label})`,
        script: 'bench/lib/noisy-subscriber.ts',
        env: { ...cleanEnvironment(), GATEWAY_URL: gateway.ready.url, DATABASE_URL: stack.databaseUrl },
        stdout: 'ignore',
      });
      targets.push({ label: gateway.label, gateway, attacker, runs: [] });
    }
    const shape = { connections: settings.authConcurrency, streamsPerConnection: 1, durationSeconds: settings.roundSeconds, warmupSeconds: settings.warmupSeconds };
    const victim = (target: Target) => ({ url: `${target.gateway.ready.url}/mainnet/v1/auth/me`, http1: true, headers: { 'x-api-key': stack.apiKey } });
    for (const target of targets) {
      const held = await target.attacker.signalForReply<NoisyReport>('SIGUSR1', 120_000);
      console.log(`${target.label}: the attacker holds ${held.subscriptions} subscriptions; refused: ${JSON.stringify(held.refusals)}`);
      await target.attacker.signalForReply<NoisyReport>('SIGUSR2');
      await h2load(victim(target), { ...shape, durationSeconds: settings.warmupSeconds });
    }

    for (let round = 0; round < settings.rounds; round += 1) {
      const order: ('alone' | 'attacked')[] = round % 2 === 0 ? ['alone', 'attacked'] : ['attacked', 'alone'];
      for (const target of round % 2 === 0 ? targets : [...targets].reverse()) {
        const result: Partial<Target['runs'][number]> = {};
        for (const condition of order) {
          if (condition === 'attacked') await target.attacker.signalForReply<NoisyReport>('SIGUSR1', 120_000);
          result[condition] = await h2load(victim(target), shape);
          if (condition === 'attacked') await target.attacker.signalForReply<NoisyReport>('SIGUSR2');
        }
        target.runs.push(result as Target['runs'][number]);
      }
    }
    for (const { label, runs } of targets) {
      const ratios = runs.map((r) => r.attacked.rps / r.alone.rps);
      const p99s = runs.map((r) => r.attacked.p99 / r.alone.p99);
      console.log(`\n${label}`);
      printTable(['round', 'alone rps', 'attacked rps', 'ratio', 'alone p99 ms', 'attacked p99 ms', 'failures'], runs.map((r, i) => [
        String(i + 1), r.alone.rps.toFixed(0), r.attacked.rps.toFixed(0), ratios[i]!.toFixed(3),
        (r.alone.p99 / 1000).toFixed(1), (r.attacked.p99 / 1000).toFixed(1), String(r.alone.failures + r.attacked.failures),
      ]));
      console.log(`victim rps attacked/alone: median ${median(ratios).toFixed(3)} (min ${Math.min(...ratios).toFixed(3)}, max ${Math.max(...ratios).toFixed(3)}); ` +
        `p99 attacked/alone median ${median(p99s).toFixed(2)}; goal ≥ 0.8`);
    }
  } finally {
    for (const target of targets) await target.attacker.stop();
    await stack.stop();
  }
}

// `node bin/run-ts.js bench/noisy-neighbour.ts` runs this benchmark alone.
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await benchNoisyNeighbour();
