/**
 * Noisy-neighbour soak (issue 19): every attacker at once, each at the most its plan allows
 * (bench/lib/noisy-*.ts: REST batch calls, GraphQL at and over the guard rails, gRPC streams and
 * calls, Warp streams with filters at the limits, webhooks to receivers that never answer,
 * JSON-RPC subscription filters), against one stack (bench/lib/noisy-stack.ts), for
 * BENCH_SOAK_SECONDS (default 600; 40 with BENCH_QUICK=1), while a victim organization runs a steady load: h2load on
 * `GET /mainnet/v1/auth/me` at a fixed modest rate (BENCH_SOAK_VICTIM_RPS, default 200/s over 4
 * connections), the same rate of `GetObject` calls on the gRPC proxy (from this process, each
 * call's grpc-status read: see `grpcStatusVictim`), and its own Warp stream and webhook.
 *
 * Prints the victim's errors (non-2xx or failed requests, retried webhook deliveries, dropped Warp
 * sockets; must be 0: exits non-zero otherwise), its rates and p99s, and every ~10 s
 * (BENCH_SOAK_SAMPLE_SECONDS) the gateway's RSS (/proc/PID/status VmRSS) and heap used after a
 * full collection (the bench gateway's SIGUSR2 report: it runs with --expose-gc; the gateway has
 * no /metrics listener of its own), plus the RSS of the gRPC proxy and `suigw streams`; "flat
 * after warm-up" is the slope of a linear fit over the second half against the first.
 * BENCH_NOISY_SURFACES narrows the attackers. `node bin/run-ts.js bench/soak.ts`.
 */
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import type { HeapReport } from './lib/gateway-server.js';
import { residentBytes, trend, type Sample } from './lib/memory-trend.js';
import { describeReport, startAttacker, type Attacker } from './lib/noisy-attackers.js';
import { readSurfaces, startNoisyStack } from './lib/noisy-stack.js';
import { authMeVictim, grpcStatusVictim, warpVictim, webhookVictim, type Victim, type VictimWindow } from './lib/noisy-victims.js';
import { printTable } from './lib/report.js';
import { readSettings } from './lib/settings.js';

// BENCH_QUICK=1 (a smoke run of `npm run bench`): 40 s.
const seconds = Number(process.env['BENCH_SOAK_SECONDS'] ?? (process.env['BENCH_QUICK'] === '1' ? 40 : 600));
const sampleSeconds = Number(process.env['BENCH_SOAK_SAMPLE_SECONDS'] ?? 10);
const victimRps = Number(process.env['BENCH_SOAK_VICTIM_RPS'] ?? 200);
const VICTIM_CONNECTIONS = 4;

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

export default async function benchSoak(): Promise<void> {
  const settings = readSettings();
  const surfaces = readSurfaces();
  console.log(`soak: ${seconds} s, every attacker at once (${surfaces.join(', ')}, plan ${process.env['NOISY_TIER'] ?? 'growth'}); ` +
    `victim ${victimRps} requests/s on auth/me${surfaces.includes('grpc') ? ' and on gRPC GetObject' : ''}, plus its own Warp stream and webhook`);
  const stack = await startNoisyStack(settings, surfaces);
  const attackers: Attacker[] = [];
  const victims: Victim[] = [];
  try {
    const load = { concurrency: VICTIM_CONNECTIONS, requestsPerSecond: victimRps / VICTIM_CONNECTIONS };
    victims.push(authMeVictim(stack, load));
    if (stack.grpcProxy) victims.push(grpcStatusVictim(stack, victimRps));
    if (stack.streams) victims.push(await warpVictim(stack), await webhookVictim(stack));
    for (const surface of surfaces) attackers.push(await startAttacker(stack, surface));
    for (const attacker of attackers) console.log(`${attacker.surface} attacker: ${describeReport(await attacker.start())}`);

    const windows = victims.map((victim) => victim.measure(seconds, 0));
    const rss: Sample[] = [];
    const heap: Sample[] = [];
    const others: { name: string; pid: number; rss: Sample[] }[] = [
      ...(stack.grpcProxy ? [{ name: 'grpc proxy', pid: stack.grpcProxy.pid, rss: [] }] : []),
      ...(stack.streams ? [{ name: 'streams', pid: stack.streams.child.pid!, rss: [] }] : []),
    ];
    const t0 = performance.now();
    for (let next = 0; next <= seconds; next += sampleSeconds) {
      const wait = next * 1000 - (performance.now() - t0);
      if (wait > 0) await sleep(wait);
      const t = (performance.now() - t0) / 1000;
      rss.push({ t, value: residentBytes(stack.gateway.pid) });
      heap.push({ t, value: (await stack.gateway.signalForReply<HeapReport>('SIGUSR2')).heap.heapUsed });
      for (const other of others) other.rss.push({ t, value: residentBytes(other.pid) });
      console.log(`t=${t.toFixed(0)} s: gateway RSS ${mb(rss.at(-1)!.value)} MB, heap after GC ${mb(heap.at(-1)!.value)} MB` +
        others.map((o) => `, ${o.name} RSS ${mb(o.rss.at(-1)!.value)} MB`).join(''));
    }
    const results: VictimWindow[] = await Promise.all(windows);
    for (const attacker of attackers) console.log(`${attacker.surface} attacker, over the soak: ${describeReport(await attacker.stop())}`);

    console.log('\nvictim');
    printTable(['measure', 'rate', 'p99', 'errors'], victims.map((victim, i) => [
      victim.name, `${results[i]!.rate.toFixed(1)} ${victim.rateUnit}`, `${results[i]!.p99Ms.toFixed(1)} (${victim.p99Unit})`, String(results[i]!.failures),
    ]));
    victims.forEach((victim, i) => {
      for (const [kind, count] of Object.entries(results[i]!.failureKinds ?? {})) console.log(`${victim.name} failed ${count}×: ${kind}`);
    });
    const errors = results.reduce((sum, r) => sum + r.failures, 0);
    console.log('\nmemory (MB per minute: least-squares slope over each half of the samples)');
    const row = (name: string, samples: Sample[]) => {
      const t = trend(samples);
      return [name, mb(t.first), mb(t.last), mb(t.firstHalf), mb(t.secondHalf)];
    };
    printTable(['process', 'first MB', 'last MB', 'slope 1st half MB/min', 'slope 2nd half MB/min'], [
      row('gateway RSS', rss), row('gateway heap after GC', heap), ...others.map((o) => row(`${o.name} RSS`, o.rss)),
    ]);
    console.log(`\nvictim errors: ${errors} (must be 0)`);
    if (errors > 0) throw new Error(`the victim saw ${errors} errors during the soak`);
  } finally {
    for (const attacker of attackers) await attacker.process.stop();
    for (const victim of victims) await victim.close();
    await stack.stop();
  }
}

// `node bin/run-ts.js bench/soak.ts` runs this benchmark alone.
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await benchSoak();
