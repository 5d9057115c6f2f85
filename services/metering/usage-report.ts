import { sql, type Kysely } from 'kysely';
import type { DatabaseSchema } from '../db/index.js';

export const USAGE_INTERVALS = ['minute', 'hour', 'day'] as const;
export type UsageInterval = (typeof USAGE_INTERVALS)[number];

export interface UsageQuery {
  organizationId: string;
  fromMs: number;
  toMs: number;
  interval: UsageInterval;
  keyId?: string | undefined;
}

export interface UsageCounts {
  requests: number;
  credits: number;
}

export interface UsageReport {
  from: string;
  to: string;
  interval: UsageInterval;
  totals: UsageCounts;
  series: (UsageCounts & { start: string })[];
  routes: (UsageCounts & { network: string; route: string })[];
}

/** Usage of one organization over [from, to): totals, a series per interval, and totals per route. */
export async function readUsage(db: Kysely<DatabaseSchema>, query: UsageQuery): Promise<UsageReport> {
  let base = db
    .selectFrom('usage_minutes')
    .where('organization_id', '=', query.organizationId)
    .where('minute', '>=', new Date(query.fromMs))
    .where('minute', '<', new Date(query.toMs));
  if (query.keyId !== undefined) base = base.where('key_id', '=', query.keyId);
  const bucket = sql<Date>`date_trunc(${sql.lit(query.interval)}, minute AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'`;
  const requests = sql<string>`sum(requests)`.as('requests');
  const credits = sql<string>`sum(credits)`.as('credits');
  const [series, routes] = await Promise.all([
    base.select([bucket.as('start'), requests, credits]).groupBy(sql`1`).orderBy(sql`1`).execute(),
    base.select(['network', 'route', requests, credits]).groupBy(['network', 'route']).orderBy('network').orderBy('route').execute(),
  ]);
  const counts = (row: { requests: string; credits: string }): UsageCounts => ({ requests: Number(row.requests), credits: Number(row.credits) });
  const totals = routes.reduce((sum, row) => ({ requests: sum.requests + Number(row.requests), credits: sum.credits + Number(row.credits) }), {
    requests: 0,
    credits: 0,
  });
  return {
    from: new Date(query.fromMs).toISOString(),
    to: new Date(query.toMs).toISOString(),
    interval: query.interval,
    totals,
    series: series.map((row) => ({ start: new Date(row.start).toISOString(), ...counts(row) })),
    routes: routes.map((row) => ({ network: row.network, route: row.route, ...counts(row) })),
  };
}
