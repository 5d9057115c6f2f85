/**
 * Does the gateway retain memory under load? The balance route at concurrency 16 for
 * BENCH_MEMORY_MINUTES (default 1; the issue's check is 10), in slices of at most a minute.
 * Before the load, between slices and after it, the gateway collects garbage and reports
 * `process.memoryUsage()` (SIGUSR2, bench/lib/gateway-server.ts, `--expose-gc`): a flat
 * heapUsed across the slices means nothing is retained per request.
 * Each report also carries the gateway's collections by kind (perf_hooks `gc` entries, the forced
 * ones left out): the second table gives major and minor GCs and GC pause per 10,000 requests,
 * per slice and over the whole load after warm-up (issue 23's "major GCs per 10,000 requests").
 * One gateway process, the first BENCH_METERING variant (default redis). BENCH_HEAP_SNAPSHOTS=DIR
 * also writes a heap snapshot at each report (compare two with bench/lib/heap-diff.ts).
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import type { GcCounts, HeapReport } from './lib/gateway-server.js';
import { h2load } from './lib/h2load.js';
import { printTable } from './lib/report.js';
import { readSettings } from './lib/settings.js';
import { startBenchStack, type GatewayProcess } from './lib/stack.js';

const CONCURRENCY = 16;

const megabytes = (bytes: number) => (bytes / 1_048_576).toFixed(1);

async function retained(gateway: GatewayProcess): Promise<HeapReport> {
  // Let in-flight work and the last responses' buffers settle before collecting.
  await sleep(1_000);
  const report = await gateway.signalForReply<HeapReport>('SIGUSR2', 120_000);
  if (report.snapshot) console.log(`heap snapshot: ${report.snapshot}`);
  return report;
}

/** Collections between two reports, per 10,000 of the requests served between them. */
function gcPer10k(from: GcCounts, to: GcCounts, requests: number): string[] {
  const per10k = (count: number) => (requests > 0 ? ((count * 10_000) / requests).toFixed(2) : '-');
  return [String(requests), per10k(to.major - from.major), per10k(to.minor - from.minor), per10k(to.incremental - from.incremental), per10k(to.pauseMs - from.pauseMs)];
}

export default async function benchMemory(): Promise<void> {
  const base = readSettings();
  const minutes = Number(process.env['BENCH_MEMORY_MINUTES'] ?? (base.quick ? 0.25 : 1));
  if (!(minutes > 0)) throw new Error(`BENCH_MEMORY_MINUTES must be positive, not ${process.env['BENCH_MEMORY_MINUTES']}`);
  const settings = { ...base, metering: base.metering.slice(0, 1) };
  const warmupSeconds = base.quick ? 3 : 20;
  console.log(
    `memory: balance route at concurrency ${CONCURRENCY} for ${minutes} min on gateway (${settings.metering[0]}), ` +
      `LOG_LEVEL=${settings.logLevel}; heap after forced GC (node --expose-gc)`,
  );
  const stack = await startBenchStack(settings, { exposeGc: true });
  try {
    const [gateway] = stack.gateways as [GatewayProcess];
    const target = {
      url: `${gateway.ready.url}/mainnet/v1/accounts/${stack.simnet.ready.owner}/balance`,
      http1: true,
      headers: { 'x-api-key': stack.apiKey },
    };
    const load = (seconds: number) =>
      h2load(target, { connections: CONCURRENCY, streamsPerConnection: 1, durationSeconds: seconds, warmupSeconds: 0, latencies: false });
    // Warm-up: JIT, pools, caches; whatever it allocates for good belongs to the baseline.
    await load(warmupSeconds);
    const rows: { label: string; requests: number; report: HeapReport }[] = [
      { label: 'before (after warm-up)', requests: 0, report: await retained(gateway) },
    ];
    let requests = 0;
    let failures = 0;
    const sliceSeconds = Math.min(60, minutes * 60);
    for (let elapsed = 0; elapsed < minutes * 60; elapsed += sliceSeconds) {
      const seconds = Math.min(sliceSeconds, minutes * 60 - elapsed);
      const run = await load(seconds);
      requests += run.requests;
      failures += run.failures;
      rows.push({ label: `after ${((elapsed + seconds) / 60).toFixed(2)} min`, requests, report: await retained(gateway) });
    }
    console.log('');
    printTable(
      ['heap after GC', 'requests', 'heapUsed MB', 'heapTotal MB', 'external MB', 'rss MB'],
      rows.map(({ label, requests: served, report: { heap } }) =>
        [label, String(served), megabytes(heap.heapUsed), megabytes(heap.heapTotal), megabytes(heap.external), megabytes(heap.rss)]),
    );
    console.log('');
    const gcColumns = ['requests', 'major GCs / 10k', 'minor GCs / 10k', 'incremental marks / 10k', 'GC pause ms / 10k'];
    printTable(['collections', ...gcColumns], [
      ...rows.slice(1).map((row, i) => [row.label, ...gcPer10k(rows[i]!.report.gc, row.report.gc, row.requests - rows[i]!.requests)]),
      ['whole load', ...gcPer10k(rows[0]!.report.gc, rows.at(-1)!.report.gc, requests)],
    ]);
    const before = rows[0]!.report.heap.heapUsed;
    const after = rows.at(-1)!.report.heap.heapUsed;
    console.log(
      `\nretained heap: ${megabytes(before)} MB → ${megabytes(after)} MB (${after >= before ? '+' : ''}${megabytes(after - before)} MB, ` +
        `${((after - before) / Math.max(requests, 1)).toFixed(2)} bytes per request), ${failures} failed requests`,
    );
  } finally {
    await stack.stop();
  }
}

// `node bin/run-ts.js bench/memory.ts` runs this benchmark alone.
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await benchMemory();
