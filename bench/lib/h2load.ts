import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { percentile } from './stats.js';

/**
 * The load generator: nghttp2's `h2load` (Debian `nghttp2-client`), a C program in a process
 * of its own. One tool for every subject: HTTP/1.1 keep-alive (`--h1`) for the gateway and the
 * bare proxy, h2c for raw gRPC straight to simnet. Closed loop, timing-based (`-D`) after a
 * warm-up (`--warm-up-time`) that it leaves out of every count. Latency percentiles come from
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
  /** Requests per second per connection (`--rps`): a fixed, open rate instead of as fast as answered (bench/soak.ts). */
  requestsPerSecond?: number;
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

const run = promisify(execFile);

export const H2LOAD = process.env['BENCH_H2LOAD'] ?? 'h2load';

function field(output: string, pattern: RegExp, what: string): number {
  const match = pattern.exec(output);
  if (!match) throw new Error(`h2load output has no ${what}:\n${output}`);
  return Number(match[1]);
}

export async function h2load(target: LoadTarget, shape: LoadShape): Promise<LoadRun> {
  const directory = await mkdtemp(join(tmpdir(), 'suigw-h2load-'));
  const logFile = join(directory, 'requests.tsv');
  const args = [
    '-c', String(shape.connections),
    '-m', String(shape.streamsPerConnection),
    '-t', '1',
    '-D', String(shape.durationSeconds),
  ];
  if (shape.warmupSeconds > 0) args.push('--warm-up-time', String(shape.warmupSeconds));
  if (shape.requestsPerSecond !== undefined) args.push('--rps', String(shape.requestsPerSecond));
  if (target.http1) args.push('--h1');
  if (target.bodyFile) args.push('-d', target.bodyFile);
  for (const [name, value] of Object.entries(target.headers ?? {})) args.push('-H', `${name}: ${value}`);
  if (shape.latencies !== false) args.push('--log-file', logFile);
  args.push(target.url);
  try {
    const { stdout } = await run(H2LOAD, args, { maxBuffer: 16 * 1024 * 1024 });
    const rps = field(stdout, /finished in [\d.]+\w*, ([\d.]+) req\/s/, 'req/s');
    const done = field(stdout, /requests: \d+ total, \d+ started, (\d+) done/, 'request count');
    const failed = field(stdout, /(\d+) failed/, 'failed count') + field(stdout, /(\d+) errored/, 'errored count') + field(stdout, /(\d+) timeout/, 'timeout count');
    if (shape.latencies === false) return { requests: done, rps, p50: Number.NaN, p99: Number.NaN, failures: failed };
    const rows = (await readFile(logFile, 'utf8')).split('\n').filter(Boolean);
    const micros = new Float64Array(rows.length);
    let non2xx = 0;
    rows.forEach((row, i) => {
      const [, status, elapsed] = row.split('\t');
      // Status 0: a request in flight when the warm-up ended (h2load logs it without the
      // status it recorded in the warm-up's counters); it completed, it did not fail.
      if (status !== '0' && !status?.startsWith('2')) non2xx += 1;
      micros[i] = Number(elapsed);
    });
    micros.sort();
    return { requests: rows.length, rps, p50: percentile(micros, 50), p99: percentile(micros, 99), failures: non2xx + failed };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
