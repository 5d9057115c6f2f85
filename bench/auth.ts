/**
 * What API-key authentication costs.
 *
 * 1. Over HTTP, at BENCH_AUTH_CONCURRENCY (16), each server in its own process, h2load as the
 *    load generator, rounds interleaved in rotated order (see docs/benchmarks.md):
 *    - `GET /hello` on the bare fastify process: a body shaped like auth/me's and nothing else
 *      (issue 23's baseline: auth/me ≥ 0.75 of it);
 *    - `GET /bench/noop` on the gateway: no key, no database, the same body and zod response
 *      schema as auth/me, so auth/me ÷ noop is authentication alone;
 *    - `GET /mainnet/v1/auth/me` with an enterprise key on a warm cache (default TTL), on each
 *      gateway variant (BENCH_METERING).
 * 2. In process: `Authenticator.authenticate` on a warm cache, timed call by call (µs).
 *    BENCH_CALLS sets the number of calls.
 *
 * Prints numbers only; nothing here is a pass/fail test.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { systemClock } from '../services/core/index.js';
import { Authenticator } from '../services/identity/index.js';
import { createBenchTenant } from './lib/bench-tenant.js';
import { printComparisons, printSubjects, warnOnFailures } from './lib/report.js';
import { compare, interleavedRounds, type Subject, type SubjectResult } from './lib/rounds.js';
import { describeSettings, readSettings, type BenchSettings } from './lib/settings.js';
import { startBenchStack, type GatewayProcess } from './lib/stack.js';
import { percentile } from './lib/stats.js';

const overHttp1 = (concurrency: number) => ({ connections: concurrency, streamsPerConnection: 1 });

async function overHttp(settings: BenchSettings): Promise<void> {
  const stack = await startBenchStack(settings);
  try {
    const [first] = stack.gateways;
    const noop = (gateway: GatewayProcess, name: string): Subject =>
      ({ name, target: { url: `${gateway.ready.url}/bench/noop`, http1: true }, shape: overHttp1, server: gateway });
    const authMe = (gateway: GatewayProcess, name: string): Subject => ({
      name,
      target: { url: `${gateway.ready.url}/mainnet/v1/auth/me`, http1: true, headers: { 'x-api-key': stack.apiKey } },
      shape: overHttp1,
      server: gateway,
    });
    const compared = stack.compareGateway;
    const subjects: Subject[] = [
      { name: 'bare GET /hello', target: { url: `${stack.bare.ready.url}/hello`, http1: true }, shape: overHttp1, server: stack.bare },
      noop(first!, 'gateway GET /bench/noop'),
      ...stack.gateways.map((gateway) => authMe(gateway, `${gateway.label} auth/me`)),
      // BENCH_COMPARE_TREE: the other checkout's noop and auth/me, last.
      ...(compared ? [noop(compared, 'compared noop'), authMe(compared, `compared (${compared.variant}) auth/me`)] : []),
    ];
    for (const subject of subjects) {
      const response = await fetch(subject.target.url, { headers: subject.target.headers ?? {} });
      if (!response.ok) throw new Error(`${subject.name}: ${response.status} ${await response.text()}`);
      await response.arrayBuffer();
    }
    const results = await interleavedRounds(subjects, {
      concurrency: settings.authConcurrency,
      rounds: settings.rounds,
      durationSeconds: settings.roundSeconds,
      warmupSeconds: settings.warmupSeconds,
    });
    const [hello, noopResult, ...rest] = results as [SubjectResult, SubjectResult, ...SubjectResult[]];
    const me = rest.slice(0, stack.gateways.length);
    const [comparedNoop, comparedMe] = rest.slice(stack.gateways.length);
    console.log(`\nauth/me, concurrency ${settings.authConcurrency} (medians over ${settings.rounds} rounds)`);
    printSubjects(results);
    console.log('');
    printComparisons([
      compare('noop / bare hello', noopResult, hello),
      ...me.flatMap((m) => [compare(`${m.subject.name} / bare hello`, m, hello), compare(`${m.subject.name} / noop`, m, noopResult)]),
      ...(comparedNoop && comparedMe
        ? [
            compare('compared noop / bare hello', comparedNoop, hello),
            compare(`${comparedMe.subject.name} / bare hello`, comparedMe, hello),
            compare('noop: this tree / compared', noopResult, comparedNoop),
            compare('auth/me: this tree / compared', me[0]!, comparedMe),
          ]
        : []),
    ]);
    warnOnFailures(results);
    console.log(`gateway log written: ${(stack.loggedBytes() / 1e6).toFixed(1)} MB at LOG_LEVEL=${settings.logLevel}`);
  } finally {
    await stack.stop();
  }
}

/** The authenticator alone on a warm cache, in this process. */
async function inProcess(calls: number): Promise<void> {
  const tenant = await createBenchTenant();
  try {
    // A long TTL keeps every call cached, which is what "warm" means; the HTTP run above uses
    // the default TTL, as deployed.
    const authenticator = new Authenticator({ database: tenant.database, clock: systemClock, ttlMs: 60_000 });
    const access = { network: 'mainnet' as const, scope: 'manage' as const, origin: undefined, clientIp: '127.0.0.1' };
    for (let i = 0; i < 20_000; i++) await authenticator.authenticate(tenant.apiKey, access);
    const samples = new Float64Array(calls);
    for (let i = 0; i < calls; i++) {
      const start = process.hrtime.bigint();
      await authenticator.authenticate(tenant.apiKey, access);
      samples[i] = Number(process.hrtime.bigint() - start) / 1_000;
    }
    samples.sort();
    const p99 = percentile(samples, 99);
    console.log(
      `\nAuthenticator.authenticate in process, warm cache, ${calls} calls: p50 ${percentile(samples, 50).toFixed(2)} µs, ` +
        `p99 ${p99.toFixed(2)} µs, p99.9 ${percentile(samples, 99.9).toFixed(2)} µs, max ${samples[samples.length - 1]!.toFixed(2)} µs ` +
        `(${p99 < 1000 ? 'under' : 'NOT under'} the 1 ms budget at p99)`,
    );
  } finally {
    await tenant.drop();
  }
}

export default async function benchAuth(): Promise<void> {
  const settings = readSettings();
  console.log(`auth/me: ${describeSettings(settings)}`);
  await overHttp(settings);
  await inProcess(Number(process.env['BENCH_CALLS'] ?? (settings.quick ? 20_000 : 200_000)));
}

// `node bin/run-ts.js bench/auth.ts` runs this benchmark alone.
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await benchAuth();
