import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { percentile } from './stats.js';

/**
 * The load generator: nghttp2's `h2load` (Debian `nghttp2-client`), a C program in a process
 * of its own. One tool for every subject: HTTP/1.1 keep-alive (`--h1`) for the gateway and the
 * bare proxy, h2c for raw gRPC straight to simnet. Closed loop, or open at a fixed rate
 * (`requestsPerSecond`, paced as `pacing` says), timing-based (`-D`) after a warm-up
 * (`--warm-up-time`) that it leaves out of every count. Latency percentiles come from
 * its per-request log (`--log-file`: start µs, status, µs to the end of the response; warm-up
 * requests are not logged), since its summary only has min/max/mean/sd.
 */
export interface LoadTarget {
  url: string;
  /** HTTP/1.1 keep-alive connections, or h2c when false. */
  http1: boolean;
  headers?: Record<string, string>;
  /** A file posted as the body of every request (raw gRPC frames). */
  bodyFile?: string;
}

export interface LoadShape {
  /** Connections. */
  connections: number;
  /** Concurrent requests per connection (HTTP/2 streams); 1 for HTTP/1.1. */
  streamsPerConnection: number;
  durationSeconds: number;
  warmupSeconds: number;
  /** Keep the per-request log: off for long memory runs, which need no percentiles. */
  latencies?: boolean;
  /** Requests per second per connection: a fixed, open rate instead of as fast as answered (bench/soak.ts). */
  requestsPerSecond?: number;
  /**
   * How that rate is released. `rps` (the default): h2load's `--rps`, whose timer wakes each
   * connection every max(10 ms, 1 s / rate) and sends what fell due since, so at 5,000/s a
   * connection gets bursts of 50 every 10 ms. `ticks`: a timing script
   * (`--timing-script-file`) that releases what falls due every millisecond, the finest h2load
   * can pace (its event loop sleeps in whole milliseconds, and each tick's timer is set from
   * the last, so the rate reached is below the rate asked: `LoadRun.rps` says what it was).
   * `ticks` takes one connection; its warm-up is the script's first `warmupSeconds`, left out
   * of every count.
   */
  pacing?: 'rps' | 'ticks';
}

export interface LoadRun {
  /** Requests completed in the measured window (warm-up excluded). */
  requests: number;
  /** As h2load computes it: completed requests / measured duration. */
  rps: number;
  /** Microseconds, from the per-request log; NaN without it. */
  p50: number;
  p99: number;
  /** Responses with a status outside 2xx, plus requests h2load counts as failed. */
  failures: number;
}

export type Pacing = NonNullable<LoadShape['pacing']>;
export const PACINGS: readonly Pacing[] = ['rps', 'ticks'];

/** A pacing named in a setting (`variable` names it in the error). */
export function pacingFrom(value: string, variable: string): Pacing {
  const pacing = PACINGS.find((known) => known === value);
  if (pacing === undefined) throw new Error(`${variable} is ${PACINGS.join(' or ')}, not ${value}`);
  return pacing;
}

const run = promisify(execFile);

export const H2LOAD = process.env['BENCH_H2LOAD'] ?? 'h2load';

function field(output: string, pattern: RegExp, what: string): number {
  const match = pattern.exec(output);
  if (!match) throw new Error(`h2load output has no ${what}:\n${output}`);
  return Number(match[1]);
}

/** One line per request: the millisecond it falls due in (whole milliseconds: one timer per tick), then the URL. */
function timingScript(url: string, requestsPerSecond: number, seconds: number): string {
  const lines: string[] = [];
  const count = Math.round(requestsPerSecond * seconds);
  for (let i = 0; i < count; i += 1) lines.push(`${Math.floor((i * 1000) / requestsPerSecond)}.000\t${url}`);
  return `${lines.join('\n')}\n`;
}

export async function h2load(target: LoadTarget, shape: LoadShape): Promise<LoadRun> {
  return shape.pacing === 'ticks' ? ticked(target, shape) : timed(target, shape);
}

/** `-D` after `--warm-up-time`: closed loop, or `--rps`. */
function timed(target: LoadTarget, shape: LoadShape): Promise<LoadRun> {
  return inScratchDirectory(async (directory) => {
    const logFile = join(directory, 'requests.tsv');
    const args = ['-c', String(shape.connections), '-m', String(shape.streamsPerConnection), '-t', '1', '-D', String(shape.durationSeconds)];
    if (shape.warmupSeconds > 0) args.push('--warm-up-time', String(shape.warmupSeconds));
    if (shape.requestsPerSecond !== undefined) args.push('--rps', String(shape.requestsPerSecond));
    if (shape.latencies !== false) args.push('--log-file', logFile);
    const { stdout } = await run(H2LOAD, [...args, ...requestArgs(target), target.url], { maxBuffer: 16 * 1024 * 1024 });
    const rps = field(stdout, /finished in [\d.]+\w*, ([\d.]+) req\/s/, 'req/s');
    const done = field(stdout, /requests: \d+ total, \d+ started, (\d+) done/, 'request count');
    if (shape.latencies === false) return { requests: done, rps, p50: Number.NaN, p99: Number.NaN, failures: failedCount(stdout) };
    const rows = parseLog(await readFile(logFile, 'utf8'));
    return { ...latencies(rows), rps, failures: failedIn(rows) + failedCount(stdout) };
  });
}

/** `pacing: 'ticks'`: the rate from a timing script, the warm-up cut from the log by start time. */
function ticked(target: LoadTarget, shape: LoadShape): Promise<LoadRun> {
  const { requestsPerSecond } = shape;
  if (shape.connections !== 1 || requestsPerSecond === undefined) throw new Error('ticks pacing takes one connection and a rate');
  return inScratchDirectory(async (directory) => {
    const logFile = join(directory, 'requests.tsv');
    const scriptFile = join(directory, 'timing.tsv');
    await writeFile(scriptFile, timingScript(target.url, requestsPerSecond, shape.warmupSeconds + shape.durationSeconds));
    const args = ['-c', '1', '-m', String(shape.streamsPerConnection), '-t', '1', `--timing-script-file=${scriptFile}`, '--log-file', logFile];
    const { stdout } = await run(H2LOAD, [...args, ...requestArgs(target)], { maxBuffer: 16 * 1024 * 1024 });
    const all = parseLog(await readFile(logFile, 'utf8'));
    const firstStart = all.reduce((first, row) => Math.min(first, row.startMicros), Infinity);
    const windowStart = firstStart + shape.warmupSeconds * 1e6;
    const rows = all.filter((row) => row.startMicros >= windowStart);
    const windowEnd = rows.reduce((end, row) => Math.max(end, row.startMicros + row.micros), windowStart);
    return { ...latencies(rows), rps: rows.length / ((windowEnd - windowStart) / 1e6), failures: failedIn(rows) + failedCount(stdout) };
  });
}

/** What every request carries: protocol, body, headers. */
function requestArgs(target: LoadTarget): string[] {
  const args: string[] = [];
  if (target.http1) args.push('--h1');
  if (target.bodyFile) args.push('-d', target.bodyFile);
  for (const [name, value] of Object.entries(target.headers ?? {})) args.push('-H', `${name}: ${value}`);
  return args;
}

/** Requests h2load itself counts as failed, errored or timed out. */
function failedCount(stdout: string): number {
  return field(stdout, /(\d+) failed/, 'failed count') + field(stdout, /(\d+) errored/, 'errored count') + field(stdout, /(\d+) timeout/, 'timeout count');
}

async function inScratchDirectory<T>(work: (directory: string) => Promise<T>): Promise<T> {
  const directory = await mkdtemp(join(tmpdir(), 'suigw-h2load-'));
  try {
    return await work(directory);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

interface LoggedRequest {
  startMicros: number;
  status: string;
  micros: number;
}

/** h2load's `--log-file`: start (µs since the epoch), status, µs to the end of the response. */
function parseLog(text: string): LoggedRequest[] {
  return text.split('\n').filter(Boolean).map((row) => {
    const [start, status, elapsed] = row.split('\t');
    return { startMicros: Number(start), status: status ?? '', micros: Number(elapsed) };
  });
}

/** Status 0 is a request in flight when the warm-up ended (logged without the status h2load kept in the warm-up's counters): it completed, it did not fail. */
function failedIn(rows: readonly LoggedRequest[]): number {
  return rows.filter((row) => row.status !== '0' && !row.status.startsWith('2')).length;
}

function latencies(rows: readonly LoggedRequest[]): Pick<LoadRun, 'requests' | 'p50' | 'p99'> {
  const micros = Float64Array.from(rows, (row) => row.micros).sort();
  return { requests: rows.length, p50: percentile(micros, 50), p99: percentile(micros, 99) };
}
