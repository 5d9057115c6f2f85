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
  /**
   * Subscribes to a NOTIFY channel; returns the unsubscribe function. A lost listening
   * connection is re-established; `onGap` is then called, since messages may have been missed.
   */
  listen(channel: string, onMessage: (payload: string) => void, onGap?: () => void): Promise<() => Promise<void>>;
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
  // Nor may a checked-out one between its queries (a transaction awaiting its caller, a
  // connection just taken): pg emits 'error' on the client with no query to fail, and the pool
  // listens only while the client is idle. The client is then unqueryable: its next query fails
  // and the pool drops it on release.
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = new Kysely<DatabaseSchema>({ dialect: new PostgresDialect({ pool }) });
  const listeners = new Set<() => Promise<void>>();
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
    async listen(channel, onMessage, onGap) {
      // LISTEN needs a connection of its own that outlives any query. When it drops (server
      // restart, failover, an idle timeout on the way) it is re-established with backoff.
      let client: pg.Client | undefined;
      let stopped = false;
      const connect = async (): Promise<void> => {
        const next = new pg.Client({ connectionString: url });
        next.on('error', () => {});
        next.on('notification', (message) => {
          if (message.channel === channel) onMessage(message.payload ?? '');
        });
        try {
          await next.connect();
          await next.query(`LISTEN ${quoteIdentifier(channel)}`);
        } catch (error) {
          await next.end().catch(() => {});
          throw error;
        }
        if (stopped) {
          await next.end().catch(() => {});
          return;
        }
        client = next;
        next.once('end', () => {
          if (!stopped) void reconnect();
        });
      };
      const reconnect = async (): Promise<void> => {
        for (let delay = 100; !stopped; delay = Math.min(delay * 2, 5_000)) {
          await new Promise((resolve) => setTimeout(resolve, delay));
          if (stopped) return;
          try {
            await connect();
            onGap?.();
            return;
          } catch {
            // still unreachable: try again after a longer pause
          }
        }
      };
      await connect();
      const stop = async () => {
        stopped = true;
        listeners.delete(stop);
        await client?.end().catch(() => {});
      };
      listeners.add(stop);
      return stop;
    },
    async close() {
      await Promise.all([...listeners].map((stop) => stop()));
      await db.destroy();
      // kysely ends the pool only if it ever used it; a handle closed before its first query
      // must not come back to life on a later one.
      if (!pool.ended) await pool.end();
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
      // PGlite has one session: holding the dialect's one connection keeps this text out of any
      // transaction another caller has open through kysely (and theirs out of it).
      await db.connection().execute(async () => {
        try {
          await pglite.exec(sqlText);
        } catch (error) {
          await pglite.exec('ROLLBACK').catch(() => {});
          throw error;
        }
      });
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
