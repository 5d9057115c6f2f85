import { mkdir } from 'node:fs/promises';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { DatabaseSchema } from './schema.js';

/**
 * One database handle over either real PostgreSQL (`DATABASE_URL`) or embedded PGlite (the dev
 * default). The rest of the code sees only kysely, `exec` (multi-statement SQL for migrations)
 * and `listen` (LISTEN/NOTIFY, used to invalidate cached principals on every process).
 */
export interface Database {
  readonly db: Kysely<DatabaseSchema>;
  readonly kind: 'postgres' | 'pglite';
  /** Runs SQL text that may hold several statements and no parameters, on one connection. */
  exec(sqlText: string): Promise<void>;
  /** Subscribes to a NOTIFY channel; returns the unsubscribe function. */
  listen(channel: string, onMessage: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** PostgreSQL URL; when absent, PGlite stores its files under `dataDir` (or in memory). */
  url?: string | undefined;
  /** Directory for PGlite's files; `memory://` keeps them in memory. */
  dataDir?: string | undefined;
  poolSize?: number;
}

// INT8 (oid 20) as string: money is bigint and must never pass through a float.
pg.types.setTypeParser(20, (value) => value);

export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  return options.url ? openPostgres(options.url, options.poolSize ?? 10) : openPglite(options.dataDir ?? 'memory://');
}

function openPostgres(url: string, poolSize: number): Database {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  // An idle client that loses its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const db = new Kysely<DatabaseSchema>({ dialect: new PostgresDialect({ pool }) });
  const listeners: pg.Client[] = [];
  return {
    db,
    kind: 'postgres',
    async exec(sqlText) {
      const client = await pool.connect();
      try {
        await client.query(sqlText);
      } catch (error) {
        // A failed multi-statement text can leave its transaction open: close it before the
        // connection goes back to the pool.
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    async listen(channel, onMessage) {
      // LISTEN needs a connection of its own that outlives any query.
      const client = new pg.Client({ connectionString: url });
      client.on('error', () => {});
      await client.connect();
      client.on('notification', (message) => {
        if (message.channel === channel) onMessage(message.payload ?? '');
      });
      await client.query(`LISTEN ${quoteIdentifier(channel)}`);
      listeners.push(client);
      return async () => {
        listeners.splice(listeners.indexOf(client), 1);
        await client.end().catch(() => {});
      };
    },
    async close() {
      await Promise.all(listeners.splice(0).map((client) => client.end().catch(() => {})));
      await db.destroy();
    },
  };
}

async function openPglite(dataDir: string): Promise<Database> {
  const [{ PGlite }, { PGliteDialect }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('kysely-pglite-dialect'),
  ]);
  if (!dataDir.startsWith('memory://')) await mkdir(dataDir, { recursive: true });
  const pglite = await PGlite.create(dataDir, { parsers: { 20: (value: string) => value } });
  const db = new Kysely<DatabaseSchema>({ dialect: new PGliteDialect(pglite) });
  return {
    db,
    kind: 'pglite',
    async exec(sqlText) {
      try {
        await pglite.exec(sqlText);
      } catch (error) {
        await pglite.exec('ROLLBACK').catch(() => {});
        throw error;
      }
    },
    async listen(channel, onMessage) {
      const unlisten = await pglite.listen(channel, onMessage);
      return async () => {
        await unlisten();
      };
    },
    async close() {
      await db.destroy();
      if (!pglite.closed) await pglite.close();
    },
  };
}

function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
