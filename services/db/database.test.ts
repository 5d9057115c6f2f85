import { sql } from 'kysely';
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
