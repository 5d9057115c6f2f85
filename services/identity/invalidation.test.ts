import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../db/index.js';
import { IDENTITY_CHANNEL, notifyIdentityChange, parseIdentityChange, type IdentityChange } from './invalidation.js';

/**
 * The embedded database (PGlite) must deliver a notification sent inside a kysely transaction
 * once it commits, and never one of a rolled-back transaction, as PostgreSQL does (the
 * PostgreSQL side is covered by test/e2e/management-cache.test.ts).
 */
describe('identity changes and raw SQL on PGlite', () => {
  let database: Database;
  const heard: IdentityChange[] = [];
  let waiter: (() => void) | undefined;

  beforeAll(async () => {
    database = await openDatabase({});
    await database.listen(IDENTITY_CHANNEL, (payload) => {
      const change = parseIdentityChange(payload);
      if (change) heard.push(change);
      waiter?.();
    });
  });
  afterAll(async () => database.close());

  const nextHeard = () => new Promise<void>((resolve) => (waiter = resolve));

  it('delivers the change of a committed transaction and not that of a rolled-back one', async () => {
    await expect(
      database.db.transaction().execute(async (trx) => {
        await notifyIdentityChange(trx, { keyId: 'key_rolledback' });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    const arrival = nextHeard();
    await database.db.transaction().execute(async (trx) => {
      await notifyIdentityChange(trx, { keyId: 'key_committed' });
      expect(heard).toEqual([]);
    });
    await arrival;
    expect(heard).toEqual([{ keyId: 'key_committed' }]);
  });

  it('a raw exec waits for an open kysely transaction instead of running inside it', async () => {
    await database.exec('CREATE TABLE exec_probe (n int)');
    let release: (() => void) | undefined;
    let inserted: (() => void) | undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const insertedRow = new Promise<void>((resolve) => (inserted = resolve));
    const transaction = database.db.transaction().execute(async (trx) => {
      await sql`insert into exec_probe values (1)`.execute(trx);
      inserted?.();
      await held;
      throw new Error('roll back');
    });
    await insertedRow;
    // Queued behind the transaction: if it ran inside, the rollback would undo its row too.
    const exec = database.exec('INSERT INTO exec_probe VALUES (2)');
    release?.();
    await expect(transaction).rejects.toThrow('roll back');
    await exec;
    const rows = await sql<{ n: number }>`select n from exec_probe order by n`.execute(database.db);
    expect(rows.rows).toEqual([{ n: 2 }]);
  });
});
