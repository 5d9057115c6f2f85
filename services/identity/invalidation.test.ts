import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../db/index.js';
import { IDENTITY_CHANNEL, notifyIdentityChange, parseIdentityChange, type IdentityChange } from './invalidation.js';

/**
 * The embedded database (PGlite) must deliver a notification sent inside a kysely transaction
 * once it commits, and never one of a rolled-back transaction, as PostgreSQL does (the
 * PostgreSQL side is covered by test/e2e/management-cache.test.ts).
 */
describe('identity change notification on PGlite', () => {
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
});
