import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from './database.js';
import { createTestDatabase, type TestDatabase } from '../../test/support/test-database.js';

describe('openDatabase (PostgreSQL)', () => {
  let test: TestDatabase;
  beforeAll(async () => {
    test = await createTestDatabase();
  });
  afterAll(async () => test.drop());

  it('a handle closed before its first query stays closed', async () => {
    const database = await openDatabase({ url: test.url, poolSize: 1 });
    await database.close();
    await expect(sql`select 1`.execute(database.db)).rejects.toThrow();
  });

  it('a handle closed after queries stays closed', async () => {
    const database = await openDatabase({ url: test.url, poolSize: 1 });
    await sql`select 1`.execute(database.db);
    await database.close();
    await expect(sql`select 1`.execute(database.db)).rejects.toThrow();
  });
});

describe('openDatabase (PostgreSQL) when the server ends a connection', () => {
  let test: TestDatabase;
  beforeAll(async () => {
    test = await createTestDatabase();
  });
  afterAll(async () => test.drop());

  it('a connection ended inside a transaction, between its queries, fails that transaction and not the process', async () => {
    const uncaught: unknown[] = [];
    const record = (error: unknown) => uncaught.push(error);
    process.on('uncaughtException', record);
    const database = await openDatabase({ url: test.url, poolSize: 2 });
    const admin = new pg.Client({ connectionString: test.url });
    await admin.connect();
    try {
      const transaction = database.db.transaction().execute(async (trx) => {
        const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
        await admin.query('select pg_terminate_backend($1)', [rows[0]!.pid]);
        // the server has closed the session when its backend is gone: wait for that, then for
        // the client to read the FATAL message (its next query is refused once it has)
        await waitFor(async () => (await admin.query('select 1 from pg_stat_activity where pid = $1', [rows[0]!.pid])).rowCount === 0);
        await waitFor(async () => sql`select 1`.execute(trx).then(() => false, () => true));
      });
      await expect(transaction).rejects.toThrow();
      expect(uncaught).toEqual([]);
      const { rows } = await sql<{ one: number }>`select 1 as one`.execute(database.db);
      expect(rows).toEqual([{ one: 1 }]);
    } finally {
      process.off('uncaughtException', record);
      await admin.end();
      await database.close();
    }
  });
});

async function waitFor(condition: () => Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setImmediate(resolve));
}
