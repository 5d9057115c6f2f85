import { randomBytes } from 'node:crypto';
import { toBase58 } from '@mysten/sui/utils';
import type { ColumnType, Generated, Kysely } from 'kysely';
import { ApiError, type Clock, type Network } from '../../core/index.js';
import type { Database, DatabaseSchema } from '../../db/index.js';
import type { StreamFilter, StreamType } from './filters.js';
import { announceDefinitionChange } from './versions.js';

type Timestamp = ColumnType<Date, Date | string, Date | string>;

/** Migration 006's tables, seen only by this module (the shared schema file stays untouched). */
// A type alias, not an interface: kysely's `withTables` needs the index signature aliases have.
export type StreamTables = {
  streams: {
    id: string;
    organization_id: string;
    network: string;
    name: string;
    type: string;
    filters: ColumnType<unknown, string, string>;
    created_at: Timestamp;
    created_seq: Generated<string>;
    deleted_at: Timestamp | null;
  };
  stream_ingest_cursors: {
    network: string;
    checkpoint: ColumnType<string, string | bigint, string | bigint>;
    /** The upstream's chain identifier when the cursor was written (null: written before it was kept). */
    chain_id: string | null;
    updated_at: Timestamp;
  };
};

export type StreamsDb = Kysely<DatabaseSchema & StreamTables>;

export function streamsDb(database: Database): StreamsDb {
  return database.db.withTables<StreamTables>();
}

/** A stream definition as the management API shows it. */
export type StreamDefinition = StreamFilter & {
  id: string;
  organizationId: string;
  network: Network;
  name: string;
  createdAt: string;
};

type Row = StreamTables['streams'] extends infer R ? { [K in keyof R]: R[K] extends ColumnType<infer S, unknown, unknown> ? S : R[K] } : never;

function toDefinition(row: Pick<Row, 'id' | 'organization_id' | 'network' | 'name' | 'type' | 'filters' | 'created_at'>): StreamDefinition {
  return {
    id: row.id,
    organizationId: row.organization_id,
    network: row.network as Network,
    name: row.name,
    type: row.type as StreamType,
    filters: row.filters,
    createdAt: new Date(row.created_at).toISOString(),
  } as StreamDefinition;
}

const COLUMNS = ['id', 'organization_id', 'network', 'name', 'type', 'filters', 'created_at'] as const;

export function newStreamId(): string {
  return `str_${toBase58(randomBytes(12))}`;
}

/**
 * Creates a stream: STREAM_LIMIT_REACHED at the plan's stream count (`limit`, from the caller's
 * plan). The organization row is locked so concurrent creations respect the limit.
 * `fromCheckpoint`: the first checkpoint sure to be matched against it (see announceDefinitionChange).
 */
export async function createStream(
  database: Database,
  clock: Clock,
  input: StreamFilter & { organizationId: string; network: Network; name: string; limit: number },
): Promise<{ stream: StreamDefinition; fromCheckpoint: string | null }> {
  return streamsDb(database).transaction().execute(async (trx) => {
    const organization = await trx.selectFrom('organizations').select(['id']).where('id', '=', input.organizationId)
      .where('deleted_at', 'is', null).forUpdate().executeTakeFirst();
    if (!organization) throw new ApiError('ORGANIZATION_NOT_FOUND');
    const { count } = await trx.selectFrom('streams').select((eb) => eb.fn.countAll<string>().as('count'))
      .where('organization_id', '=', input.organizationId).where('deleted_at', 'is', null).executeTakeFirstOrThrow();
    if (Number(count) >= input.limit) {
      throw new ApiError('STREAM_LIMIT_REACHED', { message: `The plan allows ${input.limit} stream${input.limit === 1 ? '' : 's'}.` });
    }
    const row = {
      id: newStreamId(),
      organization_id: input.organizationId,
      network: input.network,
      name: input.name,
      type: input.type,
      filters: JSON.stringify(input.filters),
      created_at: new Date(clock.now()),
    };
    await trx.insertInto('streams').values(row).execute();
    const fromCheckpoint = await announceDefinitionChange(trx, input.network);
    return { stream: toDefinition({ ...row, filters: input.filters }), fromCheckpoint };
  });
}

/** Whose streams: an organization's, on the network of the key that asks. */
export interface StreamOwner {
  organizationId: string;
  network: Network;
}

export async function listStreams(database: Database, owner: StreamOwner): Promise<StreamDefinition[]> {
  const rows = await streamsDb(database).selectFrom('streams').select(COLUMNS)
    .where('organization_id', '=', owner.organizationId).where('network', '=', owner.network).where('deleted_at', 'is', null).orderBy('created_seq').execute();
  return rows.map(toDefinition);
}

/** One live stream of the owner, or STREAM_NOT_FOUND (another organization's or network's stream is not found either). */
export async function getStream(database: Database, owner: StreamOwner, id: string): Promise<StreamDefinition> {
  const row = await streamsDb(database).selectFrom('streams').select(COLUMNS)
    .where('id', '=', id).where('organization_id', '=', owner.organizationId).where('network', '=', owner.network).where('deleted_at', 'is', null).executeTakeFirst();
  if (!row) throw new ApiError('STREAM_NOT_FOUND');
  return toDefinition(row);
}

/** A live stream by id alone: for delivery, which checks the caller's organization itself. */
export async function findStream(database: Database, id: string): Promise<StreamDefinition | undefined> {
  const row = await streamsDb(database).selectFrom('streams').select(COLUMNS)
    .where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
  return row ? toDefinition(row) : undefined;
}

/** Which of `ids` are live streams (not deleted): one query for any number. */
export async function liveStreamIds(database: Database, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await streamsDb(database).selectFrom('streams').select('id').where('id', 'in', ids).where('deleted_at', 'is', null).execute();
  return new Set(rows.map((row) => row.id));
}

/** The organization of each of `ids` that is a live stream (not deleted): one query for any number. */
export async function liveStreamOrganizations(database: Database, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await streamsDb(database).selectFrom('streams').select(['id', 'organization_id']).where('id', 'in', ids).where('deleted_at', 'is', null).execute();
  return new Map(rows.map((row) => [row.id, row.organization_id]));
}

/** Every live stream of a network: what the ingest matches checkpoints against. */
export async function listNetworkStreams(database: Database, network: Network): Promise<StreamDefinition[]> {
  const rows = await streamsDb(database).selectFrom('streams').select(COLUMNS)
    .where('network', '=', network).where('deleted_at', 'is', null).orderBy('created_seq').execute();
  return rows.map(toDefinition);
}

/** Renames a stream and/or replaces its filters; the type is fixed at creation. */
export async function updateStream(
  database: Database,
  owner: StreamOwner,
  id: string,
  change: { name?: string; filters?: StreamFilter['filters'] },
): Promise<StreamDefinition> {
  const values: { name?: string; filters?: string } = {};
  if (change.name !== undefined) values.name = change.name;
  if (change.filters !== undefined) values.filters = JSON.stringify(change.filters);
  if (Object.keys(values).length === 0) return getStream(database, owner, id);
  return streamsDb(database).transaction().execute(async (trx) => {
    const row = await trx.updateTable('streams').set(values)
      .where('id', '=', id).where('organization_id', '=', owner.organizationId).where('network', '=', owner.network).where('deleted_at', 'is', null)
      .returning(COLUMNS).executeTakeFirst();
    if (!row) throw new ApiError('STREAM_NOT_FOUND');
    await announceDefinitionChange(trx, owner.network);
    return toDefinition(row);
  });
}

export async function deleteStream(database: Database, clock: Clock, owner: StreamOwner, id: string): Promise<void> {
  await streamsDb(database).transaction().execute(async (trx) => {
    const result = await trx.updateTable('streams').set({ deleted_at: new Date(clock.now()) })
      .where('id', '=', id).where('organization_id', '=', owner.organizationId).where('network', '=', owner.network).where('deleted_at', 'is', null).executeTakeFirst();
    if (result.numUpdatedRows === 0n) throw new ApiError('STREAM_NOT_FOUND');
    await announceDefinitionChange(trx, owner.network);
  });
}
