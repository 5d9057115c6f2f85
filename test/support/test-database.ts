import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type Database } from '../../services/db/database.js';
import { migrate } from '../../services/db/migrate.js';

/**
 * A fresh, migrated database on the machine's real PostgreSQL for one test file, dropped on
 * `drop()`. Set `SUIGW_TEST_DATABASE_URL` to use another server.
 */
export const TEST_SERVER_URL = process.env['SUIGW_TEST_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDatabase {
  database: Database;
  url: string;
  drop(): Promise<void>;
}

/** A fresh, empty database (no migrations: for `suigw migrate` to apply), dropped by `drop()`. */
export async function createEmptyDatabase(prefix = 'suigw_test'): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: TEST_SERVER_URL });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(TEST_SERVER_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const empty = await createEmptyDatabase();
  const database = await openDatabase({ url: empty.url, poolSize: 5 });
  await migrate(database);
  return {
    database,
    url: empty.url,
    async drop() {
      await database.close();
      await empty.drop();
    },
  };
}
