import { sql, type QueryExecutorProvider } from 'kysely';
import type { Network } from '../../core/index.js';
import type { Database } from '../../db/index.js';

/** Migration 008's table, seen only by this module. */
type VersionTables = {
  match_definition_versions: { network: string; version: string };
};

/**
 * Announces a change of what the ingest matches on `network` (a stream or webhook created,
 * changed, deleted or switched off), inside the transaction that makes it, and answers the first
 * checkpoint sure to be matched with it: the ingest reads the version before each checkpoint, and
 * one it may be matching right now (the one after its persisted cursor) could have read the old
 * version. Null while no ingest has read a checkpoint of the network: then every checkpoint it
 * will read applies.
 */
// Plain SQL on the caller's transaction: the stream and webhook stores each see their own tables.
export async function announceDefinitionChange(trx: QueryExecutorProvider, network: Network): Promise<string | null> {
  await sql`insert into match_definition_versions (network, version) values (${network}, 1)
    on conflict (network) do update set version = match_definition_versions.version + 1`.execute(trx);
  const { rows } = await sql<{ checkpoint: string }>`select checkpoint from stream_ingest_cursors where network = ${network}`.execute(trx);
  return rows[0] ? (BigInt(rows[0].checkpoint) + 2n).toString() : null;
}

/** The network's definitions version now ('0' before the first change). */
export async function definitionVersion(database: Database, network: Network): Promise<string> {
  const row = await database.db.withTables<VersionTables>().selectFrom('match_definition_versions').select('version')
    .where('network', '=', network).executeTakeFirst();
  return row?.version ?? '0';
}
