import { sql } from 'kysely';
import { z } from 'zod';
import type { Clock } from '../core/index.js';
import type { Database } from '../db/index.js';
import type { App } from '../route-contract/index.js';

/** A dependency `/health` reports on besides the database (e.g. each upstream). */
export interface HealthCheck {
  name: string;
  check(): Promise<{ ok: boolean; detail?: string; latencyMs?: number }>;
}

/** Responses served since start: success is any status below 400, error 400 and above. */
export class RequestStats {
  success = 0;
  error = 0;

  record(statusCode: number): void {
    if (statusCode < 400) this.success += 1;
    else this.error += 1;
  }

  snapshot(): { success: number; error: number; total: number } {
    return { success: this.success, error: this.error, total: this.success + this.error };
  }
}

const DATABASE_TIMEOUT_MS = 2_000;

const healthyBody = z.object({
  status: z.enum(['ok', 'degraded']),
  database: z.literal('ok'),
  timestamp: z.string(),
  stats: z.object({ success: z.number(), error: z.number(), total: z.number() }),
});
const unhealthyBody = z.object({ status: z.literal('error'), database: z.literal('error'), error: z.string() });

export interface HealthOptions {
  database: Database;
  clock: Clock;
  stats: RequestStats;
  checks: readonly HealthCheck[];
}

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `GET /health`: public (no key), for load balancers. 200 while the database answers (status
 * `degraded` when another check fails), 503 with `{status, database, error}` when it does not.
 * Public, so it names no check, address or raw error: details are for the `manage` scope. The
 * checks must be cheap (upstreams are probed on a timer elsewhere; a check reads the result).
 */
export function registerHealth(app: App, options: HealthOptions, path: string): void {
  app.get(
    path,
    {
      config: { auth: 'none', cost: 'free' },
      schema: {
        summary: 'Service health',
        description: 'Public, needs no key. 503 when the database is unreachable; `degraded` when an upstream\'s last background probe failed or one of its circuit breakers is open. Details: `GET /{network}/v1/health/details` (manage scope).',
        tags: ['health'],
        response: { 200: healthyBody, 503: unhealthyBody },
      },
    },
    async (request, reply) => {
      try {
        await withTimeout(sql`select 1`.execute(options.database.db), DATABASE_TIMEOUT_MS, 'the database');
      } catch (error) {
        request.log.warn({ err: error }, 'health: the database did not answer');
        return reply.code(503).send({ status: 'error' as const, database: 'error' as const, error: 'the database is unreachable' });
      }
      const results = await Promise.all(
        options.checks.map(async (check) => {
          try {
            return [check.name, await withTimeout(check.check(), DATABASE_TIMEOUT_MS, check.name)] as const;
          } catch (error) {
            request.log.warn({ err: error, check: check.name }, 'health check failed');
            return [check.name, { ok: false }] as const;
          }
        }),
      );
      return {
        status: results.every(([, result]) => result.ok) ? ('ok' as const) : ('degraded' as const),
        database: 'ok' as const,
        timestamp: new Date(options.clock.now()).toISOString(),
        stats: options.stats.snapshot(),
      };
    },
  );
}

/** The liveness route's path (the chart's liveness probes). */
export const LIVENESS_PATH = '/health/live';

const liveBody = z.object({ status: z.literal('ok') });

/**
 * `GET /health/live`: public, free, 200 `{status: ok}` whenever the process answers HTTP, whatever
 * its dependencies. A liveness probe on `/health` restarts every pod when PostgreSQL is down for
 * a minute, which helps nothing (the new pods find the same database); readiness stays on
 * `/health`, which takes a pod out of the Service instead.
 */
export function registerLiveness(app: App): void {
  app.get(
    LIVENESS_PATH,
    {
      config: { auth: 'none', cost: 'free' },
      schema: {
        summary: 'Liveness',
        description: 'Public, needs no key. 200 while the process serves HTTP; checks no dependency (readiness: `GET /health`).',
        tags: ['health'],
        response: { 200: liveBody },
      },
    },
    async () => ({ status: 'ok' as const }),
  );
}
