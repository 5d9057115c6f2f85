/**
 * The latency floor under the Envoy-facing services' p99 target (issue 23: p99 < 1 ms at half
 * the bare server's saturation rate): what this machine, h2load and a Node process give when the
 * server does nothing. Two subjects, each a process of its own: nghttpd (nghttp2's server, the
 * library Node's HTTP/2 is built on, driven from C) and bench/lib/bare-h2-answer.ts (`node:http2`
 * answering 64 fixed bytes), both loaded over one h2c connection with BENCH_ENVOY_CONCURRENCY
 * (16) streams, as bench/envoy-services.ts loads authz and ratelimit.
 *
 * 1. Closed loop, interleaved rounds: each server's saturation rate.
 * 2. Half the Node server's saturation rate, then BENCH_LATENCY_FLOOR_RATE (5,000/s, near the
 *    rate envoy-services.ts paces authz and ratelimit at), open loop, both servers, paced two ways:
 *    `rps` (h2load's `--rps`: what fell due is sent every 10 ms, the "rate mode") and
 *    `ticks` (a timing script: every millisecond, at a lower rate than asked; see
 *    LoadShape.pacing). p50 and p99 per server and pacing.
 * nghttpd comes from Debian's nghttp2-server (BENCH_NGHTTPD names another binary); without it the
 * Node row runs alone. Prints numbers only; not a pass/fail test.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BareH2AnswerReady } from './lib/bare-h2-answer.js';
import { PACINGS } from './lib/h2load.js';
import { printSubjects, printTable, warnOnFailures } from './lib/report.js';
import { interleavedRounds, type Subject } from './lib/rounds.js';
import { freePort, startNativeProcess, startServiceProcess, type ServiceProcess } from './lib/service-process.js';
import { describeSettings, readSettings } from './lib/settings.js';
import { median } from './lib/stats.js';

/** Debian installs it in /usr/sbin, which a user's PATH may not hold. */
const NGHTTPD = process.env['BENCH_NGHTTPD'] ?? (existsSync('/usr/sbin/nghttpd') ? '/usr/sbin/nghttpd' : 'nghttpd');
/** BENCH_LATENCY_FLOOR_RATE: a second, fixed rate, near half the Envoy-facing baseline's saturation (bench/envoy-services.ts). */
const FIXED_RATE = Number(process.env['BENCH_LATENCY_FLOOR_RATE'] ?? 5000);

function installed(command: string): boolean {
  try {
    execFileSync(command, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export default async function benchLatencyFloor(): Promise<void> {
  const settings = readSettings();
  const concurrency = Number(process.env['BENCH_ENVOY_CONCURRENCY'] ?? 16);
  console.log(`latency floor: nghttpd and a bare node:http2 server, one h2c connection × ${concurrency} streams; ${describeSettings(settings)}`);
  const directory = await mkdtemp(join(tmpdir(), 'suigw-latency-floor-'));
  const servers: ServiceProcess<{ url: string }>[] = [];
  try {
    await writeFile(join(directory, 'answer'), Buffer.alloc(64, 0x61));
    if (installed(NGHTTPD)) {
      const port = await freePort();
      servers.push(await startNativeProcess({ name: 'nghttpd (C)', command: NGHTTPD, args: ['--no-tls', '-d', directory, String(port)], port }));
    } else {
      console.log(`${NGHTTPD} is not installed (Debian: nghttp2-server): the Node server runs alone`);
    }
    servers.push(await startServiceProcess<BareH2AnswerReady>({ name: 'bare node:http2', script: 'bench/lib/bare-h2-answer.ts', env: { ...process.env }, stdout: 'ignore' }));
    const subject = (server: ServiceProcess<{ url: string }>, shape: Subject['shape']): Subject => ({
      name: server.name, target: { url: `${server.ready.url}/answer`, http1: false }, shape, server,
    });
    const rounds = { concurrency, rounds: settings.rounds, durationSeconds: settings.roundSeconds, warmupSeconds: settings.warmupSeconds };

    console.log('\nclosed loop (medians over the rounds)');
    const closed = await interleavedRounds(servers.map((server) => subject(server, (c) => ({ connections: 1, streamsPerConnection: c }))), rounds);
    printSubjects(closed);
    warnOnFailures(closed);
    const half = Math.round(median(closed.at(-1)!.samples.map((sample) => sample.rps)) / 2);

    const rows: string[][] = [];
    for (const rate of [half, FIXED_RATE]) {
      for (const pacing of PACINGS) {
        const paced = await interleavedRounds(servers.map((server) => subject(server, (c) => ({ connections: 1, streamsPerConnection: c, requestsPerSecond: rate, pacing }))), rounds);
        warnOnFailures(paced);
        for (const result of paced) {
          const mid = (pick: (sample: (typeof result.samples)[number]) => number) => median(result.samples.map(pick)).toFixed(0);
          rows.push([result.subject.name, pacing, String(rate), mid((s) => s.rps), mid((s) => s.p50), mid((s) => s.p99), mid((s) => s.serverCpu)]);
        }
      }
    }
    console.log(`\nopen loop at half the Node server's saturation rate (${half}/s), then at ${FIXED_RATE}/s (medians over ${settings.rounds} rounds)`);
    printTable(['server', 'pacing', 'asked req/s', 'reached req/s', 'p50 µs', 'p99 µs', 'CPU µs/req'], rows);
  } finally {
    for (const server of servers.reverse()) await server.stop();
    await rm(directory, { recursive: true, force: true });
  }
}

// `node bin/run-ts.js bench/latency-floor.ts` runs this benchmark alone.
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await benchLatencyFloor();
