import { randomBytes } from 'node:crypto';
import { toBase58 } from '@mysten/sui/utils';
import { sql } from 'kysely';
import { ApiError } from '../../core/index.js';
import { announceDefinitionChange, type StreamType } from '../../streams/index.js';
import type { Network } from '../../core/index.js';
import { insertBatches, type Database } from '../../db/index.js';
import { planOfRow, type Plan } from '../../plans/index.js';
import { webhooksDb } from '../definitions/store.js';
import { nextAttemptDelay } from './retry-schedule.js';

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'cancelled'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** One matched event for one webhook, as the ingest hands it over. */
export interface QueuedEvent {
  webhookId: string;
  /**
   * The chain the checkpoint is of ('' unknown; the ingest's chain identifier, as the Warp stream
   * log's guard names it): a wiped network's new chain numbers its checkpoints from 0 again.
   */
  chain?: string;
  checkpoint: bigint;
  /** Its place among the webhook's matches of that checkpoint: with the chain and checkpoint, what makes it unique. */
  position: number;
  eventType: string;
  body: string;
}

export function newMessageId(): string {
  return `msg_${toBase58(randomBytes(12))}`;
}

/**
 * Queues events for their first attempt (due now). A checkpoint ingested twice (a restart, or
 * several `streams` processes ingesting) queues each event once; the same checkpoint number of
 * another chain (a wiped devnet or testnet) is another event. Only enabled, live webhooks queue
 * anything. The events are queued all or none: a failure leaves nothing of them queued.
 */
export async function enqueueDeliveries(database: Database, now: number, events: readonly QueuedEvent[]): Promise<number> {
  if (events.length === 0) return 0;
  const db = webhooksDb(database);
  const ids = [...new Set(events.map((event) => event.webhookId))];
  const live = new Set((await db.selectFrom('webhooks').select('id').where('id', 'in', ids).where('enabled', '=', true)
    .where('deleted_at', 'is', null).execute()).map((row) => row.id));
  const at = new Date(now);
  const rows = events.filter((event) => live.has(event.webhookId)).map((event) => ({
    id: newMessageId(),
    webhook_id: event.webhookId,
    chain: event.chain ?? '',
    checkpoint: event.checkpoint.toString(),
    position: event.position,
    event_type: event.eventType,
    body: event.body,
    status: 'pending',
    next_attempt_at: at,
    created_at: at,
  }));
  if (rows.length === 0) return 0;
  // A checkpoint can match more rows than one statement's bind parameters carry: in batches, in
  // one transaction, so the ingest's retry of a failed checkpoint finds none of it queued.
  return db.transaction().execute(async (trx) => {
    let queued = 0;
    for (const batch of insertBatches(rows)) {
      const inserted = await trx.insertInto('webhook_deliveries').values(batch)
        .onConflict((oc) => oc.columns(['webhook_id', 'chain', 'checkpoint', 'position']).doNothing()).returning('id').execute();
      queued += inserted.length;
    }
    return queued;
  });
}

/** A delivery taken for one attempt, with what the attempt needs of its webhook. */
export interface ClaimedDelivery {
  id: string;
  webhookId: string;
  organizationId: string;
  /** The organization's plan now (its credits pay for the delivery) and the webhook's network. */
  plan: Plan;
  network: Network;
  url: string;
  body: string;
  attempts: number;
  secretSealed: string;
  previousSecretSealed: string | null;
  previousSecretExpiresAt: Date | null;
}

/** What a claim leaves out and how it shares what it takes (the process's DeliverySlots say). */
export interface ClaimOptions {
  now: number;
  claimUntil: number;
  limit: number;
  paused: ReadonlySet<string>;
  /** Webhooks at their in-flight limit or with an open circuit. */
  skipWebhooks?: readonly string[];
  /** Organizations at their in-flight limit. */
  skipOrganizations?: readonly string[];
  /** At most this many per webhook and per organization in one claim. */
  perEndpoint?: number;
  perOrganization?: number;
}

/**
 * The ids a claim takes: each live webhook's oldest due deliveries, at most `perEndpoint` (index
 * webhook_deliveries_due_per_webhook), so the work of a claim grows with the number of live
 * webhooks, never with anyone's backlog; then organizations in turn, at most `perOrganization`.
 */
export function dueDeliveryIds(options: ClaimOptions) {
  const now = new Date(options.now);
  const excluded = (column: string, ids: readonly string[]) => (ids.length === 0 ? sql`` : sql`AND ${sql.ref(column)} NOT IN (${sql.join([...ids])})`);
  const perEndpoint = options.perEndpoint ?? options.limit;
  const perOrganization = options.perOrganization ?? options.limit;
  return sql<{ id: string }>`
      SELECT ranked.id FROM (
        SELECT d.id, d.next_attempt_at, d.created_seq,
          row_number() OVER (PARTITION BY h.organization_id ORDER BY d.next_attempt_at, d.created_seq) AS in_organization
        FROM webhooks AS h
        CROSS JOIN LATERAL (
          SELECT e.id, e.next_attempt_at, e.created_seq FROM webhook_deliveries AS e
          WHERE e.webhook_id = h.id AND e.status = 'pending' AND e.next_attempt_at <= ${now}
            AND (e.claimed_until IS NULL OR e.claimed_until <= ${now})
          ORDER BY e.next_attempt_at, e.created_seq
          LIMIT ${perEndpoint}
        ) AS d
        WHERE h.enabled AND h.deleted_at IS NULL
          ${excluded('h.id', [...options.paused, ...(options.skipWebhooks ?? [])])}
          ${excluded('h.organization_id', options.skipOrganizations ?? [])}
      ) AS ranked
      WHERE ranked.in_organization <= ${perOrganization}
      ORDER BY ranked.in_organization, ranked.next_attempt_at, ranked.created_seq
      LIMIT ${options.limit}
  `;
}

/**
 * Takes up to `limit` due deliveries of enabled webhooks not in `paused` for one attempt: each
 * is held until `claimUntil`, so another process does not attempt it at the same time (a
 * process that dies holding one frees it when the hold ends). The claim is fair: at most
 * `perEndpoint` per webhook and `perOrganization` per organization, organizations taken in
 * turn (each one's oldest first), so a tenant with a large backlog fills no claim alone.
 * The hold is re-checked on the row itself, so two processes never take the same delivery. A
 * claim reads at most `perEndpoint` rows per live webhook (one index probe each), whatever any
 * webhook's backlog: a tenant whose receiver never answers slows nobody else's claims.
 */
export async function claimDueDeliveries(database: Database, options: ClaimOptions): Promise<ClaimedDelivery[]> {
  const now = new Date(options.now);
  const result = await sql<{
    id: string; webhook_id: string; organization_id: string; network: string; url: string; body: string; attempts: number;
    secret_sealed: string; previous_secret_sealed: string | null; previous_secret_expires_at: Date | string | null;
    tier: string; subscription_plan: string | null; subscription_status: string | null;
  }>`
    UPDATE webhook_deliveries AS t SET claimed_until = ${new Date(options.claimUntil)}
    FROM webhooks AS w, organizations AS o
    WHERE w.id = t.webhook_id AND o.id = w.organization_id AND (t.claimed_until IS NULL OR t.claimed_until <= ${now}) AND t.status = 'pending' AND t.id IN (
      ${dueDeliveryIds(options)}
    )
    RETURNING t.id, t.webhook_id, w.organization_id, w.network, w.url, t.body, t.attempts, w.secret_sealed, w.previous_secret_sealed,
      w.previous_secret_expires_at, o.tier, o.subscription_plan, o.subscription_status
  `.execute(database.db);
  return result.rows.map((row) => ({
    id: row.id,
    webhookId: row.webhook_id,
    organizationId: row.organization_id,
    plan: planOfRow(row),
    network: row.network as Network,
    url: row.url,
    body: row.body,
    attempts: row.attempts,
    secretSealed: row.secret_sealed,
    previousSecretSealed: row.previous_secret_sealed,
    previousSecretExpiresAt: row.previous_secret_expires_at === null ? null : new Date(row.previous_secret_expires_at),
  }));
}

/** Gives claimed deliveries back untried (no slot was free for them): due again at once, for any process. */
export async function releaseClaims(database: Database, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await webhooksDb(database).updateTable('webhook_deliveries').set({ claimed_until: null }).where('id', 'in', [...ids]).execute();
}

/** What one attempt came to. `status` null: no HTTP answer (refused address, connection error, timeout). */
export interface AttemptOutcome {
  status: number | null;
  retryAfterMs: number | null;
  error: string | null;
  /** No answer within the attempt's deadline: counts toward the endpoint's circuit. */
  timedOut?: boolean;
}

/** The receiver took the delivery: any 2xx (redirects are not followed). */
export function acknowledged(outcome: AttemptOutcome): boolean {
  return outcome.status !== null && outcome.status >= 200 && outcome.status < 300;
}

/**
 * Records an attempt: 2xx succeeded; 410 Gone failed and the webhook is disabled (reason
 * `gone`, its other pending deliveries cancelled); anything else is retried on the schedule
 * until the last attempt, then failed. A delivery cancelled while its attempt was in flight (the
 * webhook disabled or deleted meanwhile) stays cancelled, never pending again: only an attempt
 * the receiver accepted turns it into succeeded, since it was delivered. Returns the status the
 * delivery has now.
 */
export async function recordAttempt(database: Database, delivery: ClaimedDelivery, now: number, outcome: AttemptOutcome): Promise<DeliveryStatus> {
  const attempts = delivery.attempts + 1;
  const succeeded = acknowledged(outcome);
  const gone = outcome.status === 410;
  const delay = succeeded || gone ? undefined : nextAttemptDelay(attempts, outcome.retryAfterMs);
  const scheduled: DeliveryStatus = succeeded ? 'succeeded' : delay === undefined ? 'failed' : 'pending';
  return webhooksDb(database).transaction().execute(async (trx) => {
    const attempt = {
      attempts,
      last_attempt_at: new Date(now),
      last_response_status: outcome.status,
      last_error: outcome.error,
      claimed_until: null,
    };
    const deliveries = () => trx.updateTable('webhook_deliveries').where('id', '=', delivery.id);
    const recorded = await deliveries().where('status', '=', 'pending')
      .set({ ...attempt, status: scheduled, next_attempt_at: delay === undefined ? null : new Date(now + delay) }).executeTakeFirst();
    let status: DeliveryStatus = scheduled;
    if (recorded.numUpdatedRows === 0n) {
      status = succeeded ? 'succeeded' : 'cancelled';
      await deliveries().where('status', '=', 'cancelled').set({ ...attempt, status, next_attempt_at: null }).execute();
    }
    if (gone) {
      const webhook = await trx.updateTable('webhooks').set({ enabled: false, disabled_reason: 'gone' }).where('id', '=', delivery.webhookId)
        .returning('network').executeTakeFirst();
      if (webhook) await announceDefinitionChange(trx, webhook.network as Network);
      // Their claims stay: those in flight are recorded when they answer (redelivery waits for it).
      await trx.updateTable('webhook_deliveries').set({ status: 'cancelled', next_attempt_at: null })
        .where('webhook_id', '=', delivery.webhookId).where('status', '=', 'pending').execute();
    }
    return status;
  });
}

/** A delivery as the delivery log shows it. */
export interface DeliveryRecord {
  id: string;
  eventType: StreamType;
  status: DeliveryStatus;
  attempts: number;
  responseStatus: number | null;
  error: string | null;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
}

const iso = (value: Date | string | null): string | null => (value === null ? null : new Date(value).toISOString());

const RECORD_COLUMNS = ['id', 'event_type', 'status', 'attempts', 'last_response_status', 'last_error', 'last_attempt_at', 'next_attempt_at', 'created_at', 'created_seq'] as const;

function toRecord(row: {
  id: string; event_type: string; status: string; attempts: number; last_response_status: number | null; last_error: string | null;
  last_attempt_at: Date | string | null; next_attempt_at: Date | string | null; created_at: Date | string;
}): DeliveryRecord {
  return {
    id: row.id,
    eventType: row.event_type as StreamType,
    status: row.status as DeliveryStatus,
    attempts: row.attempts,
    responseStatus: row.last_response_status,
    error: row.last_error,
    lastAttemptAt: iso(row.last_attempt_at),
    nextAttemptAt: iso(row.next_attempt_at),
    createdAt: new Date(row.created_at).toISOString(),
  };
}

/**
 * Queues a finished delivery (succeeded, failed or cancelled) of an enabled webhook again, by
 * hand: the same row, so the same body and the same `webhook-id` (receivers drop it if they had
 * it), due now with a fresh retry schedule (`attempts` from 0). 404 WEBHOOK_DELIVERY_NOT_FOUND
 * when the webhook has no such delivery, 409 WEBHOOK_DELIVERY_PENDING while it is queued or in
 * flight (a cancelled one whose attempt has not answered yet too: its claim is still held), 409
 * WEBHOOK_DISABLED when the webhook is switched off (nothing of it may be pending).
 */
export async function redeliver(database: Database, webhookId: string, deliveryId: string, now: number): Promise<DeliveryRecord> {
  const db = webhooksDb(database);
  // Both conditions on the rows themselves: a webhook switched off or a delivery queued again
  // meanwhile (a concurrent PATCH, DELETE or redelivery) leaves nothing pending it should not.
  const row = await db.updateTable('webhook_deliveries')
    .set({ status: 'pending', attempts: 0, next_attempt_at: new Date(now), claimed_until: null })
    .where('id', '=', deliveryId).where('webhook_id', '=', webhookId).where('status', '<>', 'pending')
    // Cancelled while its attempt is in flight: still in flight until that attempt is recorded.
    .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', new Date(now))]))
    .where(({ exists, selectFrom }) => exists(selectFrom('webhooks').select('id').where('id', '=', webhookId).where('enabled', '=', true).where('deleted_at', 'is', null)))
    .returning(RECORD_COLUMNS).executeTakeFirst();
  if (row) return toRecord(row);
  const [delivery, webhook] = await Promise.all([
    db.selectFrom('webhook_deliveries').select('status').where('id', '=', deliveryId).where('webhook_id', '=', webhookId).executeTakeFirst(),
    db.selectFrom('webhooks').select('enabled').where('id', '=', webhookId).where('deleted_at', 'is', null).executeTakeFirst(),
  ]);
  if (!delivery) throw new ApiError('WEBHOOK_DELIVERY_NOT_FOUND');
  if (!webhook?.enabled) throw new ApiError('WEBHOOK_DISABLED');
  throw new ApiError('WEBHOOK_DELIVERY_PENDING');
}

/** A page of a webhook's deliveries, newest first, after the position `before` (a created_seq). */
export async function listDeliveries(
  database: Database,
  webhookId: string,
  options: { limit: number; before: string | undefined; status: DeliveryStatus | undefined },
): Promise<{ records: DeliveryRecord[]; next: string | undefined }> {
  let query = webhooksDb(database).selectFrom('webhook_deliveries').select(RECORD_COLUMNS)
    .where('webhook_id', '=', webhookId);
  if (options.before !== undefined) query = query.where('created_seq', '<', options.before);
  if (options.status !== undefined) query = query.where('status', '=', options.status);
  const rows = await query.orderBy('created_seq', 'desc').limit(options.limit + 1).execute();
  const page = rows.slice(0, options.limit);
  return {
    records: page.map(toRecord),
    next: rows.length > options.limit ? String(page[page.length - 1]!.created_seq) : undefined,
  };
}
