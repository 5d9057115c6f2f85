import { sql, type Kysely } from 'kysely';
import type { Clock, Logger } from '../core/index.js';
import { insertBatches, type DatabaseSchema } from '../db/index.js';
import { payOverPlan } from './prepaid.js';

/** One metered request, as the recorder counts it. */
export interface UsageEvent {
  organizationId: string;
  keyId: string;
  network: string;
  /** "METHOD /v1/path/:param". */
  route: string;
  credits: number;
}

export interface FlushedUsage {
  organizationId: string;
  /** Start of the minute, Unix ms. */
  minute: number;
  credits: number;
}

interface Bucket {
  organizationId: string;
  keyId: string;
  network: string;
  route: string;
  minute: number;
  requests: number;
  credits: number;
}

const MINUTE_MS = 60_000;

export interface UsageRecorderOptions {
  db: Kysely<DatabaseSchema>;
  clock: Clock;
  logger: Logger;
  flushIntervalMs: number;
  /** Called after each successful flush with what it wrote (the credit ledger reconciles). */
  onFlushed?: (written: readonly FlushedUsage[]) => Promise<void> | void;
}

/**
 * Counts requests and credits per organization, key, network, route and minute in memory and
 * adds them to PostgreSQL in one batched upsert per interval and on close, never one write per
 * request. Each flush also pays the credits beyond an organization's monthly credits from its
 * prepaid balance, in the same transaction (`prepaid.ts`). A failed flush keeps its counts for the
 * next one; a crash loses at most the counts of one interval (docs/metering.md, "Durability").
 */
export class UsageRecorder {
  readonly #options: UsageRecorderOptions;
  #buckets = new Map<string, Bucket>();
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> | undefined;

  constructor(options: UsageRecorderOptions) {
    this.#options = options;
  }

  start(): void {
    if (this.#timer || this.#options.flushIntervalMs <= 0) return;
    this.#timer = setInterval(() => void this.tick(), this.#options.flushIntervalMs);
    this.#timer.unref();
  }

  /**
   * What each interval does: writes what is pending; with nothing to write, `onFlushed` runs all
   * the same (with nothing written), so the credit ledger re-reads balances, plans and other
   * processes' totals every interval. Before, a process with nothing to write never re-read:
   * webhook deliveries held for spent credits (which record nothing) stayed held after a prepaid
   * grant or a larger plan until the next month.
   */
  async tick(): Promise<void> {
    while (this.#flushing) await this.#flushing;
    if (this.#buckets.size > 0) return this.flush();
    // In turn with the flushes, as their own re-reads are: a read that overlapped a flush could
    // count that flush's credits neither as flushed nor as written.
    this.#flushing = this.#reread().finally(() => {
      this.#flushing = undefined;
    });
    await this.#flushing;
  }

  async #reread(): Promise<void> {
    try {
      await this.#options.onFlushed?.([]);
    } catch (error) {
      this.#options.logger.warn({ err: error }, 'usage interval: reading the totals failed');
    }
  }

  record(event: UsageEvent): void {
    const minute = Math.floor(this.#options.clock.now() / MINUTE_MS) * MINUTE_MS;
    // The hot path: count into an existing bucket without building one.
    const existing = this.#buckets.get(bucketId(event, minute));
    if (existing) {
      existing.requests += 1;
      existing.credits += event.credits;
      return;
    }
    const { organizationId, keyId, network, route, credits } = event;
    this.#merge({ organizationId, keyId, network, route, credits, minute, requests: 1 });
  }

  /** Counts not yet in PostgreSQL. */
  pending(): { requests: number; credits: number } {
    let requests = 0;
    let credits = 0;
    for (const bucket of this.#buckets.values()) {
      requests += bucket.requests;
      credits += bucket.credits;
    }
    return { requests, credits };
  }

  /** Writes every pending count; concurrent callers share one flush, then run again if more arrived. */
  async flush(): Promise<void> {
    while (this.#flushing) await this.#flushing;
    if (this.#buckets.size === 0) return;
    this.#flushing = this.#write().finally(() => {
      this.#flushing = undefined;
    });
    await this.#flushing;
  }

  /** Stops the interval and flushes what is left (graceful shutdown: SIGTERM closes the app). */
  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.flush();
    const left = this.pending();
    if (left.requests > 0) this.#options.logger.error(left, 'usage not written at shutdown');
  }

  async #write(): Promise<void> {
    const batch = [...this.#buckets.values()];
    this.#buckets = new Map();
    try {
      // One transaction: a batch lands whole or not at all, together with what it takes from
      // the prepaid balances, so a retry never counts or pays twice and no usage goes unpaid.
      await this.#options.db.transaction().execute(async (trx) => {
        await payOverPlan(trx, batch);
        for (const rows of insertBatches(batch)) await upsert(trx, rows);
      });
    } catch (error) {
      // Keep the counts: merged back, they go out with the next flush.
      for (const bucket of batch) this.#merge(bucket);
      this.#options.logger.warn({ err: error, rows: batch.length }, 'usage flush failed; retrying next interval');
      return;
    }
    await this.#options.onFlushed?.(batch);
  }

  #merge(bucket: Bucket): void {
    const id = bucketId(bucket, bucket.minute);
    const existing = this.#buckets.get(id);
    if (existing) {
      existing.requests += bucket.requests;
      existing.credits += bucket.credits;
    } else {
      this.#buckets.set(id, bucket);
    }
  }
}

function bucketId(event: Pick<UsageEvent, 'organizationId' | 'keyId' | 'network' | 'route'>, minute: number): string {
  return `${event.organizationId}\u0000${event.keyId}\u0000${event.network}\u0000${event.route}\u0000${minute}`;
}

async function upsert(db: Kysely<DatabaseSchema>, rows: readonly Bucket[]): Promise<void> {
  await db
    .insertInto('usage_minutes')
    .values(
      rows.map((row) => ({
        organization_id: row.organizationId,
        key_id: row.keyId,
        network: row.network,
        route: row.route,
        minute: new Date(row.minute),
        requests: row.requests,
        credits: row.credits,
      })),
    )
    .onConflict((conflict) =>
      conflict.columns(['organization_id', 'minute', 'key_id', 'network', 'route']).doUpdateSet({
        requests: sql`usage_minutes.requests + excluded.requests`,
        credits: sql`usage_minutes.credits + excluded.credits`,
      }),
    )
    .execute();
}
