/**
 * All cores on one machine (issue 23): `suigw gateway` started as an operator starts it (the CLI,
 * PostgreSQL, Redis metering, production log level), once with SUIGW_WORKERS=1 and once with
 * BENCH_WORKERS (default: the machine's cores), both serving `GET /mainnet/v1/auth/me` with an
 * enterprise key under h2load at BENCH_AUTH_CONCURRENCY, in interleaved rounds.
 *
 * Reports: throughput N workers ÷ 1 worker (goal: above 1 on this 2-core machine, where h2load,
 * Redis and PostgreSQL share the cores), and requests per CPU-second of the whole process tree
 * (primary + workers) N ÷ 1 (goal ≥ 0.9: the workers add no work per request).
 * Prints numbers only; not a pass/fail test.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { createBenchTenant } from './lib/bench-tenant.js';
import { printComparisons, printSubjects, warnOnFailures } from './lib/report.js';
import { compare, interleavedRounds, spread, type Subject } from './lib/rounds.js';
import { entryArguments, processCpuMicros, startServiceProcess, type ServiceProcess } from './lib/service-process.js';
import { describeSettings, readSettings } from './lib/settings.js';
import { subjectEnvironment } from './lib/stack.js';
import { freePort } from '../test/support/processes.js';
import type { SimnetReady } from './lib/simnet-process.js';

const ROOT = resolve(import.meta.dirname, '..');

const childrenOf = (pid: number): number[] => {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
};

/** `suigw gateway` with `workers` processes; its CPU is the whole tree's. */
async function startGatewayRole(workers: number, env: NodeJS.ProcessEnv): Promise<ServiceProcess<{ url: string }>> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [...entryArguments('services/cli/suigw.ts'), 'gateway'], {
    cwd: ROOT, env: { ...env, PORT: String(port), SUIGW_METRICS_PORT: 'off', SUIGW_WORKERS: String(workers) }, stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  // Ready: every worker forked and the port answering on fresh connections.
  for (;;) {
    if (child.exitCode !== null) throw new Error(`gateway (${workers} workers) exited ${child.exitCode} while starting`);
    const forked = workers === 1 || childrenOf(child.pid!).length === workers;
    const answers = forked && (await Promise.all(Array.from({ length: workers * 2 }, () => fetch(`${url}/health`, { headers: { connection: 'close' } }).then((r) => r.ok, () => false))));
    if (answers && answers.every(Boolean)) break;
    if (Date.now() > deadline) throw new Error(`gateway (${workers} workers) did not start`);
    await sleep(250);
  }
  const tree = () => [child.pid!, ...childrenOf(child.pid!)];
  return {
    name: `gateway, ${workers} worker${workers === 1 ? '' : 's'}`,
    pid: child.pid!,
    ready: { url },
    cpuMicros: () => tree().reduce((sum, pid) => sum + processCpuMicros(pid), 0),
    onMessage: () => undefined,
    signalForReply: () => Promise.reject(new Error('not used')),
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

export default async function benchWorkers(): Promise<void> {
  const settings = readSettings();
  const workers = Number(process.env['BENCH_WORKERS'] ?? availableParallelism());
  console.log(`workers: 1 vs ${workers} (${availableParallelism()} cores), ${describeSettings(settings)}`);
  const tenant = await createBenchTenant();
  const started: ServiceProcess<unknown>[] = [];
  try {
    const simnet = await startServiceProcess<SimnetReady>({ name: 'simnet', script: 'bench/lib/simnet-process.ts', env: process.env, stdout: 'ignore' });
    started.push(simnet);
    const env = subjectEnvironment(tenant, simnet.ready, 'redis', settings);
    const one = await startGatewayRole(1, env);
    started.push(one);
    const many = await startGatewayRole(workers, env);
    started.push(many);
    const authMe = (server: ServiceProcess<{ url: string }>): Subject => ({
      name: `${server.name} auth/me`,
      target: { url: `${server.ready.url}/mainnet/v1/auth/me`, http1: true, headers: { 'x-api-key': tenant.apiKey } },
      shape: (concurrency) => ({ connections: concurrency, streamsPerConnection: 1 }),
      server,
    });
    const results = await interleavedRounds([authMe(one), authMe(many)], {
      concurrency: settings.authConcurrency, rounds: settings.rounds, durationSeconds: settings.roundSeconds, warmupSeconds: settings.warmupSeconds,
    });
    const [single, several] = results as [(typeof results)[number], (typeof results)[number]];
    console.log(`\nauth/me, concurrency ${settings.authConcurrency} (medians over ${settings.rounds} rounds)`);
    printSubjects(results);
    console.log('');
    printComparisons([compare(`${workers} workers / 1 worker`, several, single)]);
    const perCpuSecond = spread(several.samples.map((sample, round) => single.samples[round]!.serverCpu / sample.serverCpu));
    console.log(`requests per CPU-second of the process tree, ${workers} workers / 1 worker: median ${perCpuSecond.median.toFixed(3)} ` +
      `(min ${perCpuSecond.min.toFixed(3)}, max ${perCpuSecond.max.toFixed(3)}); goal ≥ 0.9; throughput goal > 1`);
    warnOnFailures(results);
  } finally {
    for (const server of started.reverse()) await server.stop();
    await tenant.drop();
  }
}

// `node bin/run-ts.js bench/workers.ts` runs this benchmark alone.
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await benchWorkers();
