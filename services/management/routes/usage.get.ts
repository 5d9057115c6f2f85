import { z } from 'zod';
import { ApiError, errorResponses, type Clock } from '../../core/index.js';
import type { Database } from '../../db/index.js';
import type { App, Capability } from '../../route-contract/index.js';
import { creditPeriod, readUsage, USAGE_INTERVALS, type UsageInterval, type UsageRecorder } from '../../metering/index.js';

export interface UsageRouteDeps {
  database: Database;
  clock: Clock;
  /** This process's recorder: flushed first, so the answer includes its latest requests. */
  usage: UsageRecorder;
}

const counts = { requests: z.number().int(), credits: z.number().int() };
const usageSchema = z.object({
  from: z.string().meta({ description: 'Start of the range counted: `from` rounded down to its minute.' }),
  to: z.string().meta({ description: 'End of the range counted (exclusive): `to` rounded up to a whole minute.' }),
  interval: z.enum(USAGE_INTERVALS),
  totals: z.object(counts),
  series: z.array(z.object({ start: z.string(), ...counts })),
  routes: z.array(z.object({ network: z.string(), route: z.string(), ...counts })),
});

const query = z.object({
  from: z.iso.datetime({ offset: true }).optional().describe(
    'Start (inclusive). Default for interval `minute`: the last 60 whole minutes up to `to` (the minute `to` falls in included); ' +
    'for `hour` and `day`: the start of the credit period `to` falls in (1st of the month, 00:00 UTC). ' +
    'Usage is kept per minute: a `from` inside a minute counts that whole minute (the answer\'s `from` says so).',
  ),
  to: z.iso.datetime({ offset: true }).optional().describe(
    'End (exclusive); default: now. A `to` inside a minute counts that whole minute (the answer\'s `to` is the end of it).',
  ),
  interval: z.enum(USAGE_INTERVALS).default('day'),
  keyId: z.string().min(1).max(64).optional().describe('Only this key\'s usage.'),
});

/** Longest period one call may ask for, so a series stays bounded (at most 31 days of minutes). */
const MAX_PERIOD_MS = { minute: 86_400_000, hour: 31 * 86_400_000, day: 400 * 86_400_000 } as const;
const MINUTE_MS = 60_000;
/** A series of minutes without `from`: one hour of them, the month so far being past the one-day maximum. */
const DEFAULT_MINUTES = 60;
const EARLIEST_MS = Date.parse('0001-01-01T00:00:00.000Z');
const LATEST_MS = Date.parse('9999-12-31T23:59:59.999Z');

/** `GET /v1/usage` (manage scope, free): requests and credits of the organization over a period. */
export function usageCapability(deps: UsageRouteDeps): Capability {
  return (app: App) => {
    app.get(
      '/v1/usage',
      {
        config: { auth: { scope: 'manage' }, cost: 'free' },
        schema: {
          summary: 'Read usage',
          description:
            'Requests and credits of the calling organization over [from, to): totals, a series per interval and totals ' +
            'per route. Usage is kept per minute, so the range counted is the whole minutes [from, to) touches: the answer\'s ' +
            '`from` and `to` name it, and its counts are exactly those of that range. A series of minutes covers at most one day, ' +
            'of hours 31 days, of days 400 days, as asked (400 VALIDATION_FAILED beyond).',
          tags: ['usage'],
          querystring: query,
          response: { 200: z.object({ data: usageSchema }), ...errorResponses(400, 401, 403) },
        },
      },
      async (request) => {
        const organizationId = request.principal?.organization.id;
        if (organizationId === undefined) throw new ApiError('AUTH_CONTEXT_MISSING');
        const now = deps.clock.now();
        const { interval, keyId } = request.query;
        const toMs = request.query.to ? Date.parse(request.query.to) : now + 1;
        const fromMs = request.query.from ? Date.parse(request.query.from) : defaultFrom(interval, toMs);
        // Dates PostgreSQL stores (year 1 to 9999): year 0 or an offset past 9999-12-31 was a 500.
        if (![fromMs, toMs].every((ms) => ms >= EARLIEST_MS && ms <= LATEST_MS)) {
          throw new ApiError('VALIDATION_FAILED', { message: 'from and to must be within the years 0001 to 9999 (UTC).' });
        }
        if (toMs <= fromMs || toMs - fromMs > MAX_PERIOD_MS[interval]) {
          throw new ApiError('VALIDATION_FAILED', { message: `from must precede to, by at most ${MAX_PERIOD_MS[interval] / 86_400_000} days for interval ${interval}.` });
        }
        await deps.usage.flush();
        // Usage is kept per minute: read the whole minutes the range touches, and say so.
        const range = { fromMs: Math.floor(fromMs / MINUTE_MS) * MINUTE_MS, toMs: Math.ceil(toMs / MINUTE_MS) * MINUTE_MS };
        return { data: await readUsage(deps.database.db, { organizationId, ...range, interval, keyId }) };
      },
    );
  };
}

/**
 * Where a period without `from` starts, so that leaving the dates out never exceeds the
 * interval's maximum: the credit period `to` falls in for hours and days (at most 31 days), the
 * last 60 whole minutes for minutes (the month so far was refused on every day but the 1st).
 */
function defaultFrom(interval: UsageInterval, toMs: number): number {
  const lastMs = toMs - 1;
  if (interval !== 'minute') return creditPeriod(lastMs).startMs;
  return Math.floor(lastMs / MINUTE_MS) * MINUTE_MS - (DEFAULT_MINUTES - 1) * MINUTE_MS;
}
