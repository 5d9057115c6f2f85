/**
 * Metering's own cost, in process: the limit stage (`Meter.admit`) and the meter stage
 * (`Meter.settle`) of one balance-route request, with `BENCH_CONCURRENCY` (default 16) requests in
 * flight, for each limiter: Redis with organization leases (the default), Redis with one exact
 * decision per request (`SUIGW_RATE_LIMIT_LEASE_MS=0`), and in memory. Reported per request: CPU
 * µs of this process (`process.cpuUsage`, user + system, every thread; ioredis's socket work
 * included, Redis's own CPU not) less that of the pacing loop alone, and Redis calls
 * (`LimiterStats.roundTrips`).
 *
 * Why in process: the h2load rounds of `bench/balance.ts` compare whole gateways, whose
 * throughput on a shared machine swings more between rounds than metering costs; this isolates
 * the stages, so a change to them shows as CPU per request. The key belongs to an `enterprise`
 * organization without per-key caps, as in `bench/balance.ts`. Variants run in rotated rounds.
 */
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { createLogger, loadConfig, systemClock } from '../services/core/index.js';
import { Authenticator, type Principal } from '../services/identity/index.js';
import { createMetering, type Metering } from '../services/metering/index.js';
import { createBenchTenant } from './lib/bench-tenant.js';

interface Variant {
  name: string;
  /** The gateway environment of this metering; undefined: no metering at all. */
  env: Record<string, string> | undefined;
}

interface Measured {
  cpuUsPerRequest: number;
  roundTripsPerRequest: number;
  /** Requests the limits refused (the pacing fell behind and caught up faster than the plan rate). */
  refused: number;
}

/**
 * `requests` admit + settle cycles, `concurrency` at a time, paced at `perSecond` in total (the
 * organization's plan rate must not refuse them, and leases depend on the per-organization rate).
 * Without `metering`, only the pacing runs: the harness's own cost, subtracted in the report.
 */
async function drive(
  metering: Metering | undefined,
  principal: Principal,
  requests: number,
  concurrency: number,
  perSecond: number,
  refused = { count: 0 },
): Promise<void> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests) {
        const due = started + (next * 1000) / perSecond - performance.now();
        next += 1;
        if (due > 1) await sleep(due);
        if (!metering) continue;
        const { ticket, error } = await metering.meter.admit({
          principal,
          clientIp: '127.0.0.1',
          network: 'mainnet',
          route: 'GET /v1/accounts/:address/balance',
          cost: 1,
        });
        // A refusal still passes the meter stage, as in the gateway; counted, since it is cheaper than an admission.
        if (error) refused.count += 1;
        metering.meter.settle(ticket, { kind: 'answered', status: error ? error.definition.status : 200 });
      }
    }),
  );
}

async function measure(metering: Metering | undefined, principal: Principal, requests: number, concurrency: number, perSecond: number): Promise<Measured> {
  const tripsBefore = metering?.limiter.stats().roundTrips ?? 0;
  const cpuBefore = process.cpuUsage();
  const refused = { count: 0 };
  await drive(metering, principal, requests, concurrency, perSecond, refused);
  const cpu = process.cpuUsage(cpuBefore);
  return {
    cpuUsPerRequest: (cpu.user + cpu.system) / requests,
    roundTripsPerRequest: ((metering?.limiter.stats().roundTrips ?? 0) - tripsBefore) / requests,
    refused: refused.count,
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export default async function benchMeteringCost(): Promise<void> {
  const quick = process.env['BENCH_QUICK'] === '1';
  const rounds = Number(process.env['BENCH_ROUNDS'] ?? (quick ? 3 : 5));
  const perSecond = Number(process.env['BENCH_METERING_RATE'] ?? 1_500);
  const requests = Number(process.env['BENCH_METERING_REQUESTS'] ?? (quick ? 6_000 : 15_000));
  const concurrency = Number(process.env['BENCH_CONCURRENCY']?.split(',')[0] ?? 16);
  const redisUrl = process.env['BENCH_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
  const variants: Variant[] = [
    { name: 'none (pacing only)', env: undefined },
    { name: 'redis (leases, default)', env: { REDIS_URL: redisUrl } },
    { name: 'redis (exact: lease 0)', env: { REDIS_URL: redisUrl, SUIGW_RATE_LIMIT_LEASE_MS: '0' } },
    { name: 'memory', env: {} },
  ];
  console.log(
    `metering stages in process: ${rounds} rotated rounds × ${requests} requests per variant at ${perSecond}/s, concurrency ${concurrency}`,
  );
  const tenant = await createBenchTenant();
  const logger = createLogger('silent');
  const meterings: (Metering | undefined)[] = [];
  try {
    const principal = await new Authenticator({ database: tenant.database, clock: systemClock, ttlMs: 60_000 }).verify(tenant.apiKey, '127.0.0.1');
    for (const variant of variants) {
      if (!variant.env) {
        meterings.push(undefined);
        continue;
      }
      const config = loadConfig({
        LOG_LEVEL: 'silent',
        DATABASE_URL: tenant.databaseUrl,
        SUIGW_REDIS_KEY_PREFIX: `suigw-bench-${randomBytes(6).toString('hex')}:`,
        ...variant.env,
      });
      meterings.push(await createMetering({ config, database: tenant.database, clock: systemClock, logger }));
    }
    // Warm-up: JIT, the credit account, Redis connections and scripts.
    for (const metering of meterings) await drive(metering, principal, 2_000, concurrency, perSecond);
    const results: Measured[][] = variants.map(() => []);
    for (let round = 0; round < rounds; round += 1) {
      for (let i = 0; i < variants.length; i += 1) {
        const index = (round + i) % variants.length;
        results[index]!.push(await measure(meterings[index], principal, requests, concurrency, perSecond));
      }
    }
    const harness = median(results[0]!.map((r) => r.cpuUsPerRequest));
    console.log('\nvariant                    CPU µs/req (min..max)       metering CPU µs/req   Redis calls/req');
    variants.forEach((variant, index) => {
      const cpu = results[index]!.map((r) => r.cpuUsPerRequest);
      const own = index === 0 ? '-' : (median(cpu) - harness).toFixed(1);
      console.log(
        `${variant.name.padEnd(26)} ${median(cpu).toFixed(1).padStart(6)} (${Math.min(...cpu).toFixed(1)}..${Math.max(...cpu).toFixed(1)})`.padEnd(54) +
          own.padStart(10) +
          median(results[index]!.map((r) => r.roundTripsPerRequest)).toFixed(3).padStart(18),
      );
    });
    console.log('metering CPU = variant − pacing only (medians); CPU is this process only (Redis server excluded).');
    const refused = results.flat().reduce((sum, r) => sum + r.refused, 0);
    if (refused > 0) console.log(`WARNING: ${refused} requests were refused by the limits (the pacing fell behind and caught up): not comparable`);
  } finally {
    for (const metering of meterings) await metering?.close();
    await tenant.drop();
  }
}

// `node bin/run-ts.js bench/metering-cost.ts` runs this benchmark alone.
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await benchMeteringCost();
