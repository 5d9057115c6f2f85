import { sql } from 'kysely';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Clock, Logger } from '../../core/index.js';
import type { Database } from '../../db/index.js';
import { pausedWebhookIds } from '../definitions/pause.js';
import { webhooksDb } from '../definitions/store.js';
import type { DeliveryStatus } from './deliveries.js';

/** What an attempt left its delivery as: delivered, to be tried again, or given up (last attempt, or 410 Gone). */
export const ATTEMPT_RESULTS = ['succeeded', 'retrying', 'failed'] as const;
export type AttemptResult = (typeof ATTEMPT_RESULTS)[number];

export function attemptResult(status: DeliveryStatus): AttemptResult {
  return status === 'succeeded' ? 'succeeded' : status === 'pending' ? 'retrying' : 'failed';
}

export interface WebhookMetricsOptions {
  registry: Registry;
  database: Database;
  clock: Clock;
  logger: Logger;
}

/**
 * Webhook delivery's instruments, on the process's registry. The backlog is read from
 * PostgreSQL when Prometheus scrapes (one query per scrape, on the partial index of pending
 * deliveries), so it is the same number on every `streams` process: take the max, not the sum.
 * Deliveries of paused webhooks (their plan lost webhooks) wait on purpose and are left out.
 */
export class WebhookMetrics {
  readonly attempts: Counter<'result'>;
  readonly #o: WebhookMetricsOptions;

  constructor(options: WebhookMetricsOptions) {
    this.#o = options;
    const registers = [options.registry];
    this.attempts = new Counter({
      name: 'suigw_webhook_attempts_total',
      help: 'Webhook delivery attempts by result: succeeded, retrying (failed, tried again later), failed (given up).',
      labelNames: ['result'],
      registers,
    });
    for (const result of ATTEMPT_RESULTS) this.attempts.inc({ result }, 0);
    // One read serves both gauges: a scrape collects them concurrently, the second joins the first's read.
    let backlog: Promise<{ due: number; oldestDueSeconds: number } | undefined> | undefined;
    const read = () => {
      backlog ??= this.#readBacklog().finally(() => {
        backlog = undefined;
      });
      return backlog;
    };
    // The backlog gauges are read by the registry only (their collect), never set elsewhere.
    new Gauge({
      name: 'suigw_webhook_deliveries_due',
      help: 'Webhook deliveries due now and not yet delivered (paused webhooks left out).',
      registers,
      async collect() {
        const value = await read();
        if (value) this.set(value.due);
      },
    });
    new Gauge({
      name: 'suigw_webhook_oldest_due_seconds',
      help: 'How long the oldest due webhook delivery has been waiting for its attempt (0: none due).',
      registers,
      async collect() {
        const value = await read();
        if (value) this.set(value.oldestDueSeconds);
      },
    });
  }

  async #readBacklog(): Promise<{ due: number; oldestDueSeconds: number } | undefined> {
    const { database, clock, logger } = this.#o;
    try {
      const paused = [...await pausedWebhookIds(database)];
      const now = new Date(clock.now());
      let query = webhooksDb(database).selectFrom('webhook_deliveries')
        .select([sql<string>`count(*)`.as('due'), sql<Date | null>`min(next_attempt_at)`.as('oldest')])
        .where('status', '=', 'pending').where('next_attempt_at', '<=', now);
      if (paused.length > 0) query = query.where('webhook_id', 'not in', paused);
      const row = await query.executeTakeFirstOrThrow();
      const oldest = row.oldest === null ? now.getTime() : new Date(row.oldest).getTime();
      return { due: Number(row.due), oldestDueSeconds: Math.max(0, now.getTime() - oldest) / 1_000 };
    } catch (error) {
      // A scrape must not fail with the database: the gauges keep their last value, the log says why.
      logger.warn({ err: error }, 'webhook backlog could not be read');
      return undefined;
    }
  }
}
