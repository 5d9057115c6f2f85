/**
 * A streaming subscription's per-message overhead (issue 9): `SubscriptionService/
 * SubscribeCheckpoints` through the gRPC proxy against the same subscription straight to simnet.
 * simnet seals an (empty) checkpoint every BENCH_STREAM_INTERVAL_MS (default 5 ms, 200/s) and
 * every subscriber gets each one; BENCH_STREAMS (default 1,16) subscriptions share one h2c
 * connection. simnet, each proxy variant (BENCH_METERING, `off` excepted: the proxy always
 * meters) and this process (the subscriber) run in processes of their own.
 *
 * Two kinds of window per round, subjects in rotated order (docs/benchmarks.md, "Streaming
 * subscription"):
 * - one subject alone: messages/s delivered and CPU µs per message of the serving process
 *   (the proxy, or simnet for the direct subject) and of simnet behind it, from /proc;
 * - all subjects at once on the same checkpoints: added latency per message = (client receipt −
 *   simnet's checkpoint timestamp) through the proxy minus the same straight from simnet, per
 *   checkpoint. simnet's timestamps are synthetic (genesis + n × interval), so one lag alone
 *   carries the producer's timer drift; the difference of two measured on the same checkpoint
 *   at the same time does not.
 */
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { createBenchTenant, type BenchTenant } from './lib/bench-tenant.js';
import { subscribeCheckpoints, type Receipt } from './lib/checkpoint-subscriber.js';
import { printTable } from './lib/report.js';
import { spread } from './lib/rounds.js';
import { startServiceProcess, type ServiceProcess } from './lib/service-process.js';
import { describeSettings, readSettings, type BenchSettings } from './lib/settings.js';
import { startGrpcProxies } from './lib/stack.js';
import type { SimnetReady } from './lib/simnet-process.js';
import { median, percentile } from './lib/stats.js';

interface StreamSubject {
  name: string;
  url: string;
  headers: Record<string, string>;
  server: ServiceProcess<unknown>;
  upstream?: ServiceProcess<unknown>;
}

interface StreamSample {
  messagesPerSecond: number;
  /** CPU µs per delivered message of the serving process, and of simnet behind it (NaN for direct). */
  serverCpu: number;
  upstreamCpu: number;
  failures: number;
}

function positiveIntegers(raw: string, name: string): number[] {
  return raw.split(',').map((item) => {
    const value = Number(item.trim());
    if (!Number.isInteger(value) || value < 1) throw new Error(`${name}: ${item} is not a positive integer`);
    return value;
  });
}

/** One subject alone: `streams` subscriptions, warm-up, then a measured window. */
async function measureAlone(subject: StreamSubject, streams: number, settings: BenchSettings, durationSeconds: number): Promise<StreamSample> {
  const set = await subscribeCheckpoints(subject.url, streams, subject.headers);
  try {
    await sleep(settings.warmupSeconds * 1000);
    const before = { at: performance.now(), count: set.count, server: subject.server.cpuMicros(), upstream: subject.upstream?.cpuMicros() ?? Number.NaN };
    await sleep(durationSeconds * 1000);
    const after = { at: performance.now(), count: set.count, server: subject.server.cpuMicros(), upstream: subject.upstream?.cpuMicros() ?? Number.NaN };
    const messages = after.count - before.count;
    return {
      messagesPerSecond: messages / ((after.at - before.at) / 1000),
      serverCpu: (after.server - before.server) / messages,
      upstreamCpu: (after.upstream - before.upstream) / messages,
      failures: set.failures.length,
    };
  } finally {
    await set.close();
  }
}

interface LagSample {
  /** Per subject: median and p99 of (receipt − checkpoint timestamp), ms. */
  lag: { p50: number; p99: number }[];
  /** Per subject after the first: median and p99 over checkpoints of the lag difference to the first, µs. */
  added: { p50: number; p99: number }[];
  checkpoints: number;
}

/** Every subject subscribed at once (one stream each), on the same checkpoints. */
async function measureTogether(subjects: readonly StreamSubject[], settings: BenchSettings): Promise<LagSample> {
  const sets = await Promise.all(subjects.map((subject) => subscribeCheckpoints(subject.url, 1, subject.headers)));
  try {
    await sleep(settings.warmupSeconds * 1000);
    for (const set of sets) set.record(true);
    await sleep(settings.roundSeconds * 1000);
    for (const set of sets) set.record(false);
  } finally {
    await Promise.all(sets.map((set) => set.close()));
  }
  const bySequence = sets.map((set) => new Map(set.receipts().map((receipt) => [receipt.sequence, receipt] as [bigint, Receipt])));
  const lagOf = (receipt: Receipt) => receipt.receivedMs - receipt.checkpointMs;
  const sorted = (values: number[]) => values.sort((a, b) => a - b);
  const lag = bySequence.map((receipts) => {
    const lags = sorted([...receipts.values()].map(lagOf));
    return { p50: percentile(lags, 50), p99: percentile(lags, 99) };
  });
  const [baseline, ...others] = bySequence;
  const common = [...baseline!.keys()].filter((sequence) => others.every((receipts) => receipts.has(sequence)));
  const added = others.map((receipts) => {
    const differences = sorted(common.map((sequence) => (receipts.get(sequence)!.receivedMs - baseline!.get(sequence)!.receivedMs) * 1000));
    return { p50: percentile(differences, 50), p99: percentile(differences, 99) };
  });
  return { lag, added, checkpoints: common.length };
}

const fixed = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '-');
const range = (values: number[], digits: number) => {
  const s = spread(values);
  return `${fixed(s.median, digits)} (${fixed(s.min, digits)}..${fixed(s.max, digits)})`;
};

export default async function benchGrpcStream(): Promise<void> {
  const settings = readSettings();
  const intervalMs = Number(process.env['BENCH_STREAM_INTERVAL_MS'] ?? 5);
  if (!Number.isFinite(intervalMs) || intervalMs < 1) throw new Error('BENCH_STREAM_INTERVAL_MS must be ≥ 1');
  const streamCounts = positiveIntegers(process.env['BENCH_STREAMS'] ?? '1,16', 'BENCH_STREAMS');
  console.log(`gRPC SubscribeCheckpoints: a checkpoint every ${intervalMs} ms; ${describeSettings(settings)}`);
  const started: ServiceProcess<unknown>[] = [];
  let tenant: BenchTenant | undefined;
  try {
    tenant = await createBenchTenant();
    const simnet = await startServiceProcess<SimnetReady>({
      name: 'simnet', script: 'bench/lib/simnet-process.ts',
      env: { ...process.env, BENCH_SIMNET_CHECKPOINT_INTERVAL_MS: String(intervalMs) }, stdout: 'ignore',
    });
    started.push(simnet);
    const subjects: StreamSubject[] = [{ name: 'direct gRPC to simnet', url: simnet.ready.grpcUrl, headers: {}, server: simnet }];
    for (const { name, process: proxy } of await startGrpcProxies(tenant, simnet.ready, settings, started)) {
      subjects.push({ name, url: proxy.ready.url, headers: { 'x-api-key': tenant.apiKey }, server: proxy, upstream: simnet });
    }

    // Unmeasured pass first (JIT, the proxy's key cache and upstream session).
    for (const subject of subjects) await measureAlone(subject, 1, settings, settings.warmupSeconds);

    for (const streams of streamCounts) {
      const samples = subjects.map(() => [] as StreamSample[]);
      for (let round = 0; round < settings.rounds; round++) {
        for (let i = 0; i < subjects.length; i++) {
          const index = (round + i) % subjects.length;
          samples[index]![round] = await measureAlone(subjects[index]!, streams, settings, settings.roundSeconds);
        }
      }
      console.log(`\nSubscribeCheckpoints, ${streams} stream(s) on one connection, each subject alone (medians over ${settings.rounds} rounds)`);
      printTable(
        ['subject', 'messages/s', 'CPU µs/msg', 'simnet µs/msg', 'failures'],
        subjects.map((subject, index) => {
          const mine = samples[index]!;
          return [
            subject.name,
            fixed(median(mine.map((s) => s.messagesPerSecond))),
            fixed(median(mine.map((s) => s.serverCpu))),
            fixed(median(mine.map((s) => s.upstreamCpu))),
            String(mine.reduce((sum, s) => sum + s.failures, 0)),
          ];
        }),
      );
      console.log('');
      printTable(
        ['ratio (per round)', 'messages/s median (min..max)'],
        subjects.slice(1).map((subject, offset) => [
          `${subject.name} / direct`,
          range(samples[offset + 1]!.map((sample, round) => sample.messagesPerSecond / samples[0]![round]!.messagesPerSecond), 3),
        ]),
      );
    }

    const together: LagSample[] = [];
    for (let round = 0; round < settings.rounds; round++) together.push(await measureTogether(subjects, settings));
    console.log(`\nLatency per message, every subject subscribed at once (one stream each; medians over ${settings.rounds} rounds)`);
    printTable(
      ['subject', 'lag p99 − p50 ms', 'added p50 µs', 'added p99 µs'],
      subjects.map((subject, index) => [
        subject.name,
        fixed(median(together.map((s) => s.lag[index]!.p99 - s.lag[index]!.p50)), 2),
        index === 0 ? '-' : range(together.map((s) => s.added[index - 1]!.p50), 0),
        index === 0 ? '-' : fixed(median(together.map((s) => s.added[index - 1]!.p99))),
      ]),
    );
    console.log(`checkpoints compared per round: ${together.map((s) => s.checkpoints).join(', ')}; added = (receipt − checkpoint timestamp) through the proxy − the same direct, per checkpoint`);
  } finally {
    for (const child of started.reverse()) await child.stop();
    await tenant?.drop();
  }
}

// `node bin/run-ts.js bench/grpc-stream.ts` runs this benchmark alone.
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await benchGrpcStream();
