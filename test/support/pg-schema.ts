import { readFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/**
 * A throwaway schema on the test PostgreSQL with the given migrations applied, so test files
 * never share tables. (Replace with the foundation's helper once merged.)
 */
export async function createTestSchema<DB>(migrations: string[]): Promise<{ db: Kysely<DB>; drop: () => Promise<void> }> {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 4, options: `-c search_path=${schema}` });
  for (const file of migrations) await pool.query(await readFile(file, 'utf8'));
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    async drop() {
      await db.destroy();
      const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await client.connect();
      await client.query(`DROP SCHEMA ${schema} CASCADE`);
      await client.end();
    },
  };
}
