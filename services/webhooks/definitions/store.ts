import { randomBytes } from 'node:crypto';
import { toBase58 } from '@mysten/sui/utils';
import type { ColumnType, Generated, Kysely } from 'kysely';
import { ApiError, type Clock, type Network } from '../../core/index.js';
import type { Database, DatabaseSchema } from '../../db/index.js';
import { announceDefinitionChange, type StreamFilter, type StreamType } from '../../streams/index.js';
import type { SecretBox } from './signing-secret.js';
import { newSigningSecret } from './signing-secret.js';

type Timestamp = ColumnType<Date, Date | string, Date | string>;

/** Migration 007's tables, seen only by this module. */
// A type alias, not an interface: kysely's `withTables` needs the index signature aliases have.
export type WebhookTables = {
  webhooks: {
    id: string;
    organization_id: string;
    network: string;
    url: string;
    type: string;
    filters: ColumnType<unknown, string, string>;
    enabled: ColumnType<boolean, boolean | undefined, boolean>;
    disabled_reason: string | null;
    secret_sealed: string;
    previous_secret_sealed: string | null;
    previous_secret_expires_at: Timestamp | null;
    created_at: Timestamp;
    created_seq: Generated<string>;
    deleted_at: Timestamp | null;
  };
  webhook_deliveries: {
    id: string;
    webhook_id: string;
    /** The checkpoint's chain identifier ('' unknown): migration 013. */
    chain: ColumnType<string, string | undefined, string>;
    checkpoint: ColumnType<string, string | bigint, string | bigint>;
    position: number;
    event_type: string;
    body: string;
    status: string;
    attempts: ColumnType<number, number | undefined, number>;
    next_attempt_at: Timestamp | null;
    claimed_until: Timestamp | null;
    last_attempt_at: Timestamp | null;
    last_response_status: number | null;
    last_error: string | null;
    created_at: Timestamp;
    created_seq: Generated<string>;
  };
};

export type WebhooksDb = Kysely<DatabaseSchema & WebhookTables>;

export function webhooksDb(database: Database): WebhooksDb {
  return database.db.withTables<WebhookTables>();
}

/** After a rotation the previous secret keeps signing beside the new one for this long. */
export const PREVIOUS_SECRET_TTL_MS = 24 * 3_600_000;

export type WebhookDefinition = StreamFilter & {
  id: string;
  organizationId: string;
  network: Network;
  url: string;
  enabled: boolean;
  disabledReason: 'gone' | 'manual' | null;
  createdAt: string;
};

const COLUMNS = ['id', 'organization_id', 'network', 'url', 'type', 'filters', 'enabled', 'disabled_reason', 'created_at'] as const;

interface DefinitionRow {
  id: string;
  organization_id: string;
  network: string;
  url: string;
  type: string;
  filters: unknown;
  enabled: boolean;
  disabled_reason: string | null;
  created_at: Date | string;
}

function toDefinition(row: DefinitionRow): WebhookDefinition {
  return {
    id: row.id,
    organizationId: row.organization_id,
    network: row.network as Network,
    url: row.url,
    type: row.type as StreamType,
    filters: row.filters,
    enabled: row.enabled,
    disabledReason: row.disabled_reason as WebhookDefinition['disabledReason'],
    createdAt: new Date(row.created_at).toISOString(),
  } as WebhookDefinition;
}

export function newWebhookId(): string {
  return `wh_${toBase58(randomBytes(12))}`;
}

/** Whose webhooks: an organization's, on the network of the key that asks. */
export interface WebhookOwner {
  organizationId: string;
  network: Network;
}

/**
 * Creates a webhook with a new secret (returned once): WEBHOOK_LIMIT_REACHED at the plan's
 * webhook count. The organization row is locked so concurrent creations respect the limit.
 */
export async function createWebhook(
  database: Database,
  clock: Clock,
  box: SecretBox,
  input: StreamFilter & WebhookOwner & { url: string; limit: number },
): Promise<{ webhook: WebhookDefinition; secret: string; fromCheckpoint: string | null }> {
  return webhooksDb(database).transaction().execute(async (trx) => {
    const organization = await trx.selectFrom('organizations').select(['id']).where('id', '=', input.organizationId)
      .where('deleted_at', 'is', null).forUpdate().executeTakeFirst();
    if (!organization) throw new ApiError('ORGANIZATION_NOT_FOUND');
    const { count } = await trx.selectFrom('webhooks').select((eb) => eb.fn.countAll<string>().as('count'))
      .where('organization_id', '=', input.organizationId).where('deleted_at', 'is', null).executeTakeFirstOrThrow();
    if (Number(count) >= input.limit) {
      throw new ApiError('WEBHOOK_LIMIT_REACHED', { message: `The plan allows ${input.limit} webhook${input.limit === 1 ? '' : 's'}.` });
    }
    const id = newWebhookId();
    const secret = newSigningSecret();
    const row = {
      id,
      organization_id: input.organizationId,
      network: input.network,
      url: input.url,
      type: input.type,
      filters: JSON.stringify(input.filters),
      secret_sealed: box.seal(id, secret),
      created_at: new Date(clock.now()),
    };
    await trx.insertInto('webhooks').values(row).execute();
    const fromCheckpoint = await announceDefinitionChange(trx, input.network);
    return { webhook: toDefinition({ ...row, filters: input.filters, enabled: true, disabled_reason: null }), secret, fromCheckpoint };
  });
}

export async function listWebhooks(database: Database, owner: WebhookOwner): Promise<WebhookDefinition[]> {
  const rows = await webhooksDb(database).selectFrom('webhooks').select(COLUMNS)
    .where('organization_id', '=', owner.organizationId).where('network', '=', owner.network).where('deleted_at', 'is', null)
    .orderBy('created_seq').execute();
  return rows.map(toDefinition);
}

/** One live webhook of the owner, or WEBHOOK_NOT_FOUND (another organization's or network's is not found either). */
export async function getWebhook(database: Database, owner: WebhookOwner, id: string): Promise<WebhookDefinition> {
  const row = await webhooksDb(database).selectFrom('webhooks').select(COLUMNS)
    .where('id', '=', id).where('organization_id', '=', owner.organizationId).where('network', '=', owner.network).where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!row) throw new ApiError('WEBHOOK_NOT_FOUND');
  return toDefinition(row);
}

/** Every live webhook id of an organization, oldest first: what the plan-end pause rule ranks. */
export async function organizationWebhookIds(database: Database, organizationId: string): Promise<string[]> {
  const rows = await webhooksDb(database).selectFrom('webhooks').select('id')
    .where('organization_id', '=', organizationId).where('deleted_at', 'is', null).orderBy('created_seq').execute();
  return rows.map((row) => row.id);
}

export interface WebhookChange {
  url?: string;
  filters?: StreamFilter['filters'];
  enabled?: boolean;
}

/**
 * Changes the URL, the filters (of the same type) or `enabled`. Disabling cancels the pending
 * deliveries (no delivery is attempted for a switched-off endpoint); enabling clears the reason.
 */
export async function updateWebhook(database: Database, owner: WebhookOwner, id: string, change: WebhookChange): Promise<WebhookDefinition> {
  return webhooksDb(database).transaction().execute(async (trx) => {
    const values: { url?: string; filters?: string; enabled?: boolean; disabled_reason?: string | null } = {};
    if (change.url !== undefined) values.url = change.url;
    if (change.filters !== undefined) values.filters = JSON.stringify(change.filters);
    if (change.enabled !== undefined) {
      values.enabled = change.enabled;
      values.disabled_reason = change.enabled ? null : 'manual';
    }
    const query = trx.updateTable('webhooks')
      .where('id', '=', id).where('organization_id', '=', owner.organizationId).where('network', '=', owner.network).where('deleted_at', 'is', null);
    const row = Object.keys(values).length === 0
      ? await trx.selectFrom('webhooks').select(COLUMNS)
        .where('id', '=', id).where('organization_id', '=', owner.organizationId).where('network', '=', owner.network).where('deleted_at', 'is', null)
        .executeTakeFirst()
      : await query.set(values).returning(COLUMNS).executeTakeFirst();
    if (!row) throw new ApiError('WEBHOOK_NOT_FOUND');
    if (change.enabled === false) await cancelPending(trx, id);
    if (Object.keys(values).length > 0) await announceDefinitionChange(trx, owner.network);
    return toDefinition(row);
  });
}

/** The claim stays: an attempt in flight is still in flight (redelivery waits for its record). */
async function cancelPending(trx: WebhooksDb, webhookId: string): Promise<void> {
  await trx.updateTable('webhook_deliveries').set({ status: 'cancelled', next_attempt_at: null })
    .where('webhook_id', '=', webhookId).where('status', '=', 'pending').execute();
}

/** Deletes a webhook: its slot is freed and its pending deliveries are cancelled; the delivery log stays for the record. */
export async function deleteWebhook(database: Database, clock: Clock, owner: WebhookOwner, id: string): Promise<void> {
  await webhooksDb(database).transaction().execute(async (trx) => {
    const result = await trx.updateTable('webhooks').set({ deleted_at: new Date(clock.now()) })
      .where('id', '=', id).where('organization_id', '=', owner.organizationId).where('network', '=', owner.network).where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (result.numUpdatedRows === 0n) throw new ApiError('WEBHOOK_NOT_FOUND');
    await cancelPending(trx, id);
    await announceDefinitionChange(trx, owner.network);
  });
}

/**
 * A new secret (returned once); the current one becomes the previous one and keeps signing
 * until `previousExpiresAt`, so receivers can switch without losing a delivery. A second
 * rotation within that window drops the older previous secret.
 */
export async function rotateWebhookSecret(
  database: Database,
  clock: Clock,
  box: SecretBox,
  owner: WebhookOwner,
  id: string,
): Promise<{ secret: string; previousExpiresAt: string }> {
  return webhooksDb(database).transaction().execute(async (trx) => {
    const row = await trx.selectFrom('webhooks').select(['id', 'secret_sealed'])
      .where('id', '=', id).where('organization_id', '=', owner.organizationId).where('network', '=', owner.network).where('deleted_at', 'is', null)
      .forUpdate().executeTakeFirst();
    if (!row) throw new ApiError('WEBHOOK_NOT_FOUND');
    const secret = newSigningSecret();
    const previousExpiresAt = new Date(clock.now() + PREVIOUS_SECRET_TTL_MS);
    await trx.updateTable('webhooks').set({
      secret_sealed: box.seal(id, secret),
      previous_secret_sealed: row.secret_sealed,
      previous_secret_expires_at: previousExpiresAt,
    }).where('id', '=', id).execute();
    return { secret, previousExpiresAt: previousExpiresAt.toISOString() };
  });
}

/** Every enabled live webhook of a network, as the ingest's matcher takes them. */
export async function listNetworkWebhookTargets(database: Database, network: Network): Promise<(StreamFilter & { id: string })[]> {
  const rows = await webhooksDb(database).selectFrom('webhooks').select(['id', 'type', 'filters'])
    .where('network', '=', network).where('enabled', '=', true).where('deleted_at', 'is', null).orderBy('created_seq').execute();
  return rows.map((row) => ({ id: row.id, type: row.type, filters: row.filters }) as StreamFilter & { id: string });
}
