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
 *   as `{heap: …}` over IPC (stdout when run by hand), for bench/memory.ts; with
 *   BENCH_HEAP_SNAPSHOTS=DIR it also writes a heap snapshot there and names it (`snapshot`).
 */
import { join } from 'node:path';
import { writeHeapSnapshot } from 'node:v8';
import { exitWithParent, serveUntilStopped } from './service-process.js';
import { buildInjectableGateway } from './inject-app.js';

exitWithParent();

export interface GatewayReady {
  url: string;
}

export interface HeapReport {
  heap: NodeJS.MemoryUsage;
  /** The heap snapshot written after the collection, with BENCH_HEAP_SNAPSHOTS set. */
  snapshot?: string;
}

/** BENCH_HEAP_SNAPSHOTS=DIR: every heap report also writes a V8 heap snapshot there (bench/lib/heap-diff.ts compares two). */
const snapshotDirectory = process.env['BENCH_HEAP_SNAPSHOTS'];

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
  const report: HeapReport = { heap: process.memoryUsage() };
  if (snapshotDirectory) report.snapshot = writeHeapSnapshot(join(snapshotDirectory, `gateway-${process.pid}-${Date.now()}.heapsnapshot`));
  if (process.send) process.send(report);
  else console.log(JSON.stringify(report));
});

const url = await app.listen({ port: 0, host: '127.0.0.1' });
const ready: GatewayReady = { url };
serveUntilStopped(ready, close);
