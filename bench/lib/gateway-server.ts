/**
 * The gateway in a process of its own, built as `suigw gateway` builds it (services/cli/
 * gateway.ts): configuration from the environment (production log level `info` to stdout,
 * default key cache TTL, the upstream set from SUI_MAINNET_GRPC_URL / SUI_MAINNET_GRAPHQL_URL,
 * REDIS_URL or not), PostgreSQL from DATABASE_URL (already migrated). Only the port and the
 * interface are forced (a free port on 127.0.0.1).
 *
 * `node --expose-gc bin/run-ts.js bench/lib/gateway-server.ts`; announces `{url}` (see
 * service-process.ts). Two additions for benchmarks, neither on a production path:
 * - `GET /bench/noop`: no key, no database, the same body and zod response schema as
 *   `/v1/auth/me`, so that its difference to auth/me is authentication alone;
 * - on SIGUSR2 it collects garbage (needs `--expose-gc`) and reports `process.memoryUsage()`
 *   as `{heap: …, gc: …}` (collections by kind since start, forced ones left out) over IPC (stdout when run by hand), for bench/memory.ts; with
 *   BENCH_HEAP_SNAPSHOTS=DIR it also writes a heap snapshot there and names it (`snapshot`).
 */
import { join } from 'node:path';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { writeHeapSnapshot } from 'node:v8';
import { installLeanAsyncResourceBind } from '../../services/core/index.js';
import { exitWithParent, serveUntilStopped } from './service-process.js';
import { buildInjectableGateway } from './inject-app.js';

exitWithParent();
// As every role's process does at start (services/cli).
installLeanAsyncResourceBind();

export interface GatewayReady {
  url: string;
}

export interface HeapReport {
  heap: NodeJS.MemoryUsage;
  /** Collections since the process started, by kind, leaving out the ones this report forced. */
  gc: GcCounts;
  /** The heap snapshot written after the collection, with BENCH_HEAP_SNAPSHOTS set. */
  snapshot?: string;
}

/** BENCH_HEAP_SNAPSHOTS=DIR: every heap report also writes a V8 heap snapshot there (bench/lib/heap-diff.ts compares two). */
const snapshotDirectory = process.env['BENCH_HEAP_SNAPSHOTS'];

/** V8's collections by kind (perf_hooks' `gc` entries) and their summed pause. */
export interface GcCounts {
  minor: number;
  major: number;
  incremental: number;
  weakCallbacks: number;
  pauseMs: number;
}

const gcCounts: GcCounts = { minor: 0, major: 0, incremental: 0, weakCallbacks: 0, pauseMs: 0 };
// The forced collections of a heap report are flagged FORCED; only the ones the load caused count.
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const detail = (entry as { detail?: { kind: number; flags: number } }).detail;
    if (!detail || (detail.flags & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED) !== 0) continue;
    gcCounts.pauseMs += entry.duration;
    if (detail.kind === constants.NODE_PERFORMANCE_GC_MINOR) gcCounts.minor += 1;
    else if (detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR) gcCounts.major += 1;
    else if (detail.kind === constants.NODE_PERFORMANCE_GC_INCREMENTAL) gcCounts.incremental += 1;
    else if (detail.kind === constants.NODE_PERFORMANCE_GC_WEAKCB) gcCounts.weakCallbacks += 1;
  }
}).observe({ entryTypes: ['gc'] });

const { app, close } = await buildInjectableGateway(process.env);

process.on('SIGUSR2', () => {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) {
    console.error('gateway-server: SIGUSR2 needs node --expose-gc');
    return;
  }
  // Twice: the first pass may only queue finalizers whose targets the second one frees.
  gc();
  gc();
  const report: HeapReport = { heap: process.memoryUsage(), gc: { ...gcCounts } };
  if (snapshotDirectory) report.snapshot = writeHeapSnapshot(join(snapshotDirectory, `gateway-${process.pid}-${Date.now()}.heapsnapshot`));
  if (process.send) process.send(report);
  else console.log(JSON.stringify(report));
});

const url = await app.listen({ port: 0, host: '127.0.0.1' });
const ready: GatewayReady = { url };
serveUntilStopped(ready, close);
