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

export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `suigw_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_SERVER_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(TEST_SERVER_URL);
  url.pathname = `/${name}`;
  const database = await openDatabase({ url: url.toString(), poolSize: 5 });
  await migrate(database);
  return {
    database,
    url: url.toString(),
    async drop() {
      await database.close();
      const client = new pg.Client({ connectionString: TEST_SERVER_URL });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
