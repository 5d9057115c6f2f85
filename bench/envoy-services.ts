/**
 * The Envoy-facing services (issue 23): `suigw authz` answering ext_authz Check and `suigw
 * ratelimit` answering ShouldRateLimit, each against a bare grpc-js server loading the same
 * Envoy protos with proto-loader and answering fixed responses of the same size
 * (bench/lib/bare-envoy-services.ts). Every server is a process of its own, h2load the load
 * generator (one prebuilt gRPC frame, one h2c connection with c concurrent streams, as Envoy
 * multiplexes its calls), production settings (LOG_LEVEL=info, PostgreSQL, Redis for ratelimit,
 * an enterprise key, one process per role, and the heap a pod with the chart's memory limit gives
 * it: BENCH_ENVOY_HEAP, the bare server too), interleaved rounds.
 *
 * 1. Throughput at c=16 (BENCH_ENVOY_CONCURRENCY): service ÷ bare, per round.
 * 2. Latency under load: the bare server's saturation rate (its median req/s in step 1), then
 *    every server at half that rate (h2load `--rps`, open loop): p50 and p99 per server; over one
 *    connection, or over BENCH_ENVOY_PACED_CONNECTIONS connections sharing the rate. h2load's
 *    `--rps` sends what fell due every 10 ms (bursts of rate / 100); BENCH_ENVOY_PACING=ticks
 *    sends it every millisecond instead (one connection; the rate reached is lower, and printed).
 * Targets (issue 23): ≥ 0.9 of the bare throughput; p99 < 1 ms at half the bare saturation rate.
 * 3. After each step, every role's garbage collection during it, from its own /metrics
 *    (prom-client's `nodejs_gc_duration_seconds`): mark-compacts and scavenges with their means and
 *    how many outlasted 10, 20, 100 and 200 ms, mark-compacts per 10,000 measured calls; Envoy gives ext_authz 200 ms
 *    (fail closed) and the rate-limit call 20 ms (fail open), so a long mark-compact is an answer lost.
 *
 * The Check is a REST request with a real key and 15 headers; the ShouldRateLimit carries the
 * descriptor Envoy builds from DESCRIPTOR_KEYS, with an identity token authz signed for that
 * request, fetched again before every run (a token is valid for 30 s). BENCH_COMPARE_TREE runs
 * another checkout's two roles as more subjects of the same rounds (each ratelimit gets its tokens
 * from its own checkout's authz). Prints numbers only; not a pass/fail test.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { credentials, type Client } from '@grpc/grpc-js';
import type { CheckResponse, RateLimitResponse } from '../services/envoy/index.js';
import { IDENTITY_HEADERS } from '../services/identity/index.js';
import { authorizationService, rateLimitService } from '../test/support/envoy-protos.js';
import { unary } from '../test/support/envoy-stack.js';
import type { BareEnvoyServicesReady } from './lib/bare-envoy-services.js';
import { createBenchTenant, type BenchTenant } from './lib/bench-tenant.js';
import {
  CHECK_CALL_HEADERS, CHECK_PATH, checkRequest, checkRequestFrame, RATE_LIMIT_CALL_HEADERS, rateLimitRequest, rateLimitRequestFrame, SHOULD_RATE_LIMIT_PATH,
} from './lib/envoy-requests.js';
import { gcBetween, gcTotalsOf, PAUSE_BOUNDS, refusalsOf, startEnvoyRole, type EnvoyRoleReady, type GcTotals } from './lib/envoy-role.js';
import { pacingFrom } from './lib/h2load.js';
import { printComparisons, printSubjects, warnOnFailures } from './lib/report.js';
import { compare, interleavedRounds, type Subject, type SubjectResult } from './lib/rounds.js';
import { startServiceProcess, type ServiceProcess } from './lib/service-process.js';
import { describeSettings, readSettings, type BenchSettings } from './lib/settings.js';
import { assertRedisAnswers, cleanEnvironment, compareEnvoyNodeFlags, compareTree, envoyHeapFlags, envoyNodeFlags } from './lib/stack.js';
import { median } from './lib/stats.js';

/** One checkout's pair of roles, with grpc-js clients to fetch real answers and tokens. */
interface EnvoyRoles {
  label: string;
  authz: ServiceProcess<EnvoyRoleReady>;
  ratelimit: ServiceProcess<EnvoyRoleReady>;
  authzClient: Client;
  ratelimitClient: Client;
  /** The ShouldRateLimit frame h2load posts to this checkout's ratelimit, rewritten before each run. */
  rateLimitBody: string;
}

const overOneConnection = (concurrency: number) => ({ connections: 1, streamsPerConnection: concurrency });
/**
 * The paced shape: BENCH_ENVOY_PACED_CONNECTIONS (default 1) connections sharing the rate and the
 * streams. h2load paces each connection with a timer of its own, so more connections release the
 * same rate in smaller batches (as Envoy's worker threads each hold a connection of their own).
 */
const pacedConnections = Number(process.env['BENCH_ENVOY_PACED_CONNECTIONS'] ?? 1);
/**
 * BENCH_ENVOY_PACING: `rps` (the default, the "h2load rate mode": what falls due is sent
 * every 10 ms) or `ticks` (every millisecond, at a lower rate than asked); see LoadShape.pacing.
 */
const pacing = pacingFrom(process.env['BENCH_ENVOY_PACING'] ?? 'rps', 'BENCH_ENVOY_PACING');
const atRate = (requestsPerSecond: number) => (concurrency: number) => ({
  connections: pacedConnections,
  streamsPerConnection: Math.max(1, Math.ceil(concurrency / pacedConnections)),
  requestsPerSecond: requestsPerSecond / pacedConnections,
  pacing,
});

async function startRoles(label: string, tenant: BenchTenant, settings: BenchSettings, directory: string, root?: string): Promise<EnvoyRoles> {
  const env = {
    ...cleanEnvironment(),
    DATABASE_URL: tenant.databaseUrl,
    SUIGW_PLANS_FILE: tenant.plansFile,
    LOG_LEVEL: settings.logLevel,
    // Both roles of a checkout share it: its ratelimit verifies the tokens its authz signs.
    SUIGW_SECRET: randomBytes(32).toString('hex'),
    REDIS_URL: settings.redisUrl,
    SUIGW_REDIS_KEY_PREFIX: `bench:${randomBytes(6).toString('hex')}:`,
  };
  const nodeFlags = root === undefined ? envoyNodeFlags() : compareEnvoyNodeFlags();
  const authz = await startEnvoyRole('authz', `${label} authz`, env, root, nodeFlags);
  const ratelimit = await startEnvoyRole('ratelimit', `${label} ratelimit`, env, root, nodeFlags).catch(async (error: unknown) => {
    await authz.stop();
    throw error;
  });
  return {
    label,
    authz,
    ratelimit,
    authzClient: new (authorizationService())(authz.ready.address, credentials.createInsecure()),
    ratelimitClient: new (rateLimitService())(ratelimit.ready.address, credentials.createInsecure()),
    rateLimitBody: join(directory, `${label.replace(/\W+/g, '-')}-should-rate-limit.grpc`),
  };
}

/** The answer to the benchmark's Check, which must be an allow with an identity token. */
async function allowedCheck(roles: EnvoyRoles, apiKey: string): Promise<{ answer: CheckResponse; token: string }> {
  const answer = await unary<CheckResponse>(roles.authzClient, 'Check', checkRequest(apiKey));
  const token = answer.ok_response?.headers.find((option) => option.header.key === IDENTITY_HEADERS.token)?.header.value;
  if (answer.status.code !== 0 || token === undefined) throw new Error(`${roles.label} authz did not allow the benchmark's Check: ${JSON.stringify(answer)}`);
  return { answer, token };
}

/** A fresh token from this checkout's authz, written into its ShouldRateLimit frame. */
async function refreshRateLimitBody(roles: EnvoyRoles, apiKey: string): Promise<void> {
  const { token } = await allowedCheck(roles, apiKey);
  await writeFile(roles.rateLimitBody, rateLimitRequestFrame(token));
}

function checkSubject(name: string, address: string, bodyFile: string, server: ServiceProcess<unknown>): Subject {
  return { name, target: { url: `http://${address}${CHECK_PATH}`, http1: false, headers: CHECK_CALL_HEADERS, bodyFile }, shape: overOneConnection, server };
}

function rateLimitSubject(name: string, address: string, bodyFile: string, server: ServiceProcess<unknown>): Subject {
  return { name, target: { url: `http://${address}${SHOULD_RATE_LIMIT_PATH}`, http1: false, headers: RATE_LIMIT_CALL_HEADERS, bodyFile }, shape: overOneConnection, server };
}

function report(title: string, results: SubjectResult[]): void {
  console.log(`\n${title}`);
  printSubjects(results);
  console.log('');
  const [bare, ...services] = results;
  printComparisons(services.map((result) => compare(`${result.subject.name} / bare`, result, bare!)));
  warnOnFailures(results);
}

/** Step 2: every subject at half the bare server's saturation rate; p99 against the 1 ms target. */
async function underLoad(service: string, subjects: Subject[], saturation: number, settings: BenchSettings, concurrency: number, roles: ServiceProcess<EnvoyRoleReady>[]): Promise<void> {
  const rate = Math.round(saturation / 2);
  if (pacedConnections !== 1) console.log(`\n${service} paced over ${pacedConnections} connections, ${(rate / pacedConnections).toFixed(1)} req/s each`);
  const paced = subjects.map((subject) => ({ ...subject, shape: atRate(rate) }));
  const title = `${service} at ${rate} req/s, half the bare server's ${Math.round(saturation)} req/s`;
  const results = await withGcReport(title, roles, () => interleavedRounds(paced, { concurrency, rounds: settings.rounds, durationSeconds: settings.roundSeconds, warmupSeconds: settings.warmupSeconds }));
  report(`${title} (medians over ${settings.rounds} rounds)`, results.results);
  for (const result of results.results) {
    const p99 = median(result.samples.map((sample) => sample.p99));
    console.log(`${result.subject.name}: p99 ${(p99 / 1000).toFixed(3)} ms (${p99 < 1000 ? 'under' : 'NOT under'} 1 ms), achieved ${Math.round(median(result.samples.map((s) => s.rps)))} of ${rate} req/s (${pacing} pacing)`);
  }
  results.printGc();
}

/**
 * Each role's garbage collection over `run` (its /metrics before and after), to print after the
 * run's report: mark-compacts are the pauses that can outlast Envoy's timeouts (ext_authz 200 ms,
 * fail closed; rate limit 20 ms, fail open). Warm-ups are in the GC counts, not in the calls.
 */
async function withGcReport(title: string, roles: ServiceProcess<EnvoyRoleReady>[], run: () => Promise<SubjectResult[]>): Promise<{ results: SubjectResult[]; printGc(): void }> {
  const before = await Promise.all(roles.map(gcTotalsOf));
  const results = await run();
  const after = await Promise.all(roles.map(gcTotalsOf));
  return {
    results,
    printGc() {
      console.log(`\nGarbage collection during ${title} (warm-ups included):`);
      roles.forEach((role, index) => {
        const calls = results.filter((result) => result.subject.server === role).flatMap((result) => result.samples).reduce((sum, sample) => sum + sample.requests, 0);
        console.log(`${role.name}: ${describeGc(gcBetween(before[index]!, after[index]!), calls)}`);
      });
    },
  };
}

function describeGc(gc: GcTotals, calls: number): string {
  const mean = (seconds: number, count: number) => (count === 0 ? '-' : `${((seconds / count) * 1000).toFixed(1)} ms`);
  const perTenThousand = calls === 0 ? '-' : ((gc.majors / calls) * 10_000).toFixed(2);
  // Pauses over each bound, "n/a" where the role's histogram has no such bucket.
  const over = (kind: 'major' | 'minor') => PAUSE_BOUNDS.map((bound) => gc.over[kind][bound] ?? 'n/a').join('/');
  const bounds = PAUSE_BOUNDS.map((bound) => Number(bound) * 1000).join('/');
  return `${gc.majors} mark-compacts (mean ${mean(gc.majorSeconds, gc.majors)}, over ${bounds} ms: ${over('major')}; ${perTenThousand} per 10k of its ${calls} measured calls), `
    + `${gc.minors} scavenges (mean ${mean(gc.minorSeconds, gc.minors)}, over ${bounds} ms: ${over('minor')}); resident ${(gc.residentBytes / 2 ** 20).toFixed(0)} MiB at the end`;
}

export default async function benchEnvoyServices(): Promise<void> {
  const settings = readSettings();
  const concurrency = Number(process.env['BENCH_ENVOY_CONCURRENCY'] ?? 16);
  console.log(`Envoy services: concurrency ${concurrency} on one h2c connection; ${describeSettings(settings)}; heap ${envoyHeapFlags().join(' ') || 'Node\'s defaults on this machine'} (BENCH_ENVOY_HEAP)`);
  await assertRedisAnswers(settings.redisUrl);
  const tenant = await createBenchTenant();
  const directory = await mkdtemp(join(tmpdir(), 'suigw-bench-envoy-'));
  const started: ServiceProcess<unknown>[] = [];
  const checkouts: EnvoyRoles[] = [];
  try {
    const checkBody = join(directory, 'check.grpc');
    await writeFile(checkBody, checkRequestFrame(tenant.apiKey));
    const start = async (label: string, root?: string) => {
      const roles = await startRoles(label, tenant, settings, directory, root);
      started.push(roles.authz, roles.ratelimit);
      checkouts.push(roles);
      return roles;
    };
    const here = await start('suigw');
    const otherTree = compareTree();
    if (otherTree !== undefined) await start('compared', otherTree);

    // Every checkout's answers checked once: an allow with a token, then OK for that token.
    let checkAnswer: CheckResponse | undefined;
    let rateLimitAnswer: RateLimitResponse | undefined;
    for (const roles of checkouts) {
      const { answer, token } = await allowedCheck(roles, tenant.apiKey);
      const limited = await unary<RateLimitResponse>(roles.ratelimitClient, 'ShouldRateLimit', rateLimitRequest(token));
      if (limited.overall_code !== 1) throw new Error(`${roles.label} ratelimit did not admit the benchmark's request: ${JSON.stringify(limited)}`);
      checkAnswer ??= answer;
      rateLimitAnswer ??= limited;
      await refreshRateLimitBody(roles, tenant.apiKey);
    }
    // The bare server answers what this checkout answers: the same bytes on the wire.
    const bare = await startServiceProcess<BareEnvoyServicesReady>({
      name: 'bare grpc-js',
      script: 'bench/lib/bare-envoy-services.ts',
      env: { ...cleanEnvironment(), BARE_CHECK_ANSWER: JSON.stringify(checkAnswer), BARE_RATE_LIMIT_ANSWER: JSON.stringify(rateLimitAnswer) },
      stdout: 'ignore',
      // The same heap as the roles (BENCH_ENVOY_HEAP): a pod of the same size would run it.
      nodeFlags: envoyHeapFlags(),
    });
    started.push(bare);

    const checks = [
      checkSubject('bare grpc-js Check', bare.ready.address, checkBody, bare),
      ...checkouts.map((roles) => checkSubject(`${roles.label} authz Check`, roles.authz.ready.address, checkBody, roles.authz)),
    ];
    const rateLimits = [
      rateLimitSubject('bare grpc-js ShouldRateLimit', bare.ready.address, here.rateLimitBody, bare),
      ...checkouts.map((roles) => ({
        ...rateLimitSubject(`${roles.label} ratelimit ShouldRateLimit`, roles.ratelimit.ready.address, roles.rateLimitBody, roles.ratelimit),
        beforeRun: () => refreshRateLimitBody(roles, tenant.apiKey),
        refusals: () => refusalsOf(roles.ratelimit),
      })),
    ];
    const options = { concurrency, rounds: settings.rounds, durationSeconds: settings.roundSeconds, warmupSeconds: settings.warmupSeconds };
    for (const [service, subjects] of [['Check', checks], ['ShouldRateLimit', rateLimits]] as const) {
      const roles = checkouts.map((roles) => (service === 'Check' ? roles.authz : roles.ratelimit));
      const saturated = await withGcReport(`${service}, concurrency ${concurrency}`, roles, () => interleavedRounds(subjects, options));
      report(`${service}, concurrency ${concurrency} (medians over ${settings.rounds} rounds)`, saturated.results);
      saturated.printGc();
      await underLoad(service, subjects, median(saturated.results[0]!.samples.map((sample) => sample.rps)), settings, concurrency, roles);
    }
  } finally {
    for (const roles of checkouts) {
      roles.authzClient.close();
      roles.ratelimitClient.close();
    }
    for (const child of started.reverse()) await child.stop();
    await tenant.drop();
    await rm(directory, { recursive: true, force: true });
  }
}

// `node bin/run-ts.js bench/envoy-services.ts` runs this benchmark alone.
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await benchEnvoyServices();
