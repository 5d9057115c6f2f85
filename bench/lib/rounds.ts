import { setTimeout as sleep } from 'node:timers/promises';
import { h2load, type LoadRun, type LoadShape, type LoadTarget } from './h2load.js';
import type { ServiceProcess } from './service-process.js';
import { median } from './stats.js';

/**
 * Interleaved rounds: every subject runs once per round, round r starting with subject
 * r mod n (rotated order), so that drift on a noisy machine (a neighbour's load, GC, thermal)
 * hits every subject alike and no subject always runs first or right after another. Ratios are
 * taken within a round, then summarized over the rounds (median, min..max).
 */
export interface Subject {
  name: string;
  target: LoadTarget;
  /** Concurrent requests → connections × streams per connection (and a fixed rate, for an open-loop run). */
  shape(concurrency: number): Pick<LoadShape, 'connections' | 'streamsPerConnection' | 'requestsPerSecond' | 'pacing'>;
  /** The process that answers the load generator. */
  server: ServiceProcess<unknown>;
  /** The process it calls (simnet), if it is not the server itself. */
  upstream?: ServiceProcess<unknown>;
  /**
   * Calls the server refused so far, by its own count, for answers h2load cannot tell from
   * successes (a gRPC refusal is an HTTP 200 with a `grpc-status` trailer): those of a run are
   * added to its failures.
   */
  refusals?(): Promise<number>;
  /** Runs before each of the subject's runs, e.g. to write a fresh request body (a token that must not go stale). */
  beforeRun?(): Promise<void>;
}

export interface RoundsOptions {
  concurrency: number;
  rounds: number;
  durationSeconds: number;
  warmupSeconds: number;
}

export interface Sample extends LoadRun {
  /** CPU of the server process per request, µs. */
  serverCpu: number;
  /** CPU of the upstream process per request, µs; NaN when the subject has none. */
  upstreamCpu: number;
}

/**
 * CPU per request = the process's CPU rate over the measured window ÷ the request rate over
 * that window. Both are rates, so a few milliseconds of misalignment between these samples
 * (taken on timers) and h2load's own window cost nothing but a little noise.
 */
async function measure(subject: Subject, options: RoundsOptions): Promise<Sample> {
  const shape: LoadShape = { ...subject.shape(options.concurrency), durationSeconds: options.durationSeconds, warmupSeconds: options.warmupSeconds };
  const cpu = () => ({ at: performance.now(), server: subject.server.cpuMicros(), upstream: subject.upstream?.cpuMicros() ?? Number.NaN });
  await subject.beforeRun?.();
  const refusedBefore = await subject.refusals?.();
  const running = h2load(subject.target, shape);
  const sampling = (async () => {
    await sleep(options.warmupSeconds * 1000);
    const before = cpu();
    await sleep(options.durationSeconds * 1000);
    return { before, after: cpu() };
  })();
  const [run, { before, after }] = await Promise.all([running, sampling]);
  // Counted over the whole run, warm-up included: any refusal makes the run's figures not comparable.
  const refused = refusedBefore === undefined ? 0 : (await subject.refusals!()) - refusedBefore;
  const seconds = (after.at - before.at) / 1000;
  const perRequest = (from: number, to: number) => (to - from) / seconds / run.rps;
  return { ...run, failures: run.failures + refused, serverCpu: perRequest(before.server, after.server), upstreamCpu: perRequest(before.upstream, after.upstream) };
}

export interface SubjectResult {
  subject: Subject;
  /** One sample per round, in round order. */
  samples: Sample[];
}

export async function interleavedRounds(subjects: readonly Subject[], options: RoundsOptions): Promise<SubjectResult[]> {
  // One unmeasured pass first: JIT, connection pools and caches of every process.
  for (const subject of subjects) await measure(subject, { ...options, durationSeconds: options.warmupSeconds });
  const results = subjects.map((subject) => ({ subject, samples: [] as Sample[] }));
  for (let round = 0; round < options.rounds; round++) {
    for (let i = 0; i < subjects.length; i++) {
      const index = (round + i) % subjects.length;
      results[index]!.samples[round] = await measure(subjects[index]!, options);
    }
  }
  return results;
}

export interface Spread {
  median: number;
  min: number;
  max: number;
}

export function spread(values: readonly number[]): Spread {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values) };
}

export interface Comparison {
  name: string;
  /** subject req/s ÷ baseline req/s, per round. */
  throughput: Spread;
  /** subject CPU µs/request ÷ baseline CPU µs/request (each its own server process), per round. */
  cpu: Spread;
  /** Median over the rounds of (subject − baseline) latency, µs. */
  addedP50: number;
  addedP99: number;
}

export function compare(name: string, subject: SubjectResult, baseline: SubjectResult): Comparison {
  const perRound = (pick: (a: Sample, b: Sample) => number) => subject.samples.map((sample, round) => pick(sample, baseline.samples[round]!));
  return {
    name,
    throughput: spread(perRound((a, b) => a.rps / b.rps)),
    cpu: spread(perRound((a, b) => a.serverCpu / b.serverCpu)),
    addedP50: median(perRound((a, b) => a.p50 - b.p50)),
    addedP99: median(perRound((a, b) => a.p99 - b.p99)),
  };
}
