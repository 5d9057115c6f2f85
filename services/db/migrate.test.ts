import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from './database.js';
import { migrate } from './migrate.js';
import { createTestDatabase, type TestDatabase } from '../../test/support/test-database.js';

describe('migrate', () => {
  let test: TestDatabase | undefined;
  afterAll(async () => test?.drop());

  it('applies every migration once on PostgreSQL, and again is a no-op', async () => {
    test = await createTestDatabase();
    const again = await migrate(test.database);
    expect(again.applied).toEqual([]);
    expect(again.alreadyApplied).toBeGreaterThanOrEqual(1);
    const rows = await test.database.db.selectFrom('schema_migrations').select('name').execute();
    expect(rows.map((r) => r.name)).toContain('001_identity');
  });

  it('racing migrators on one database apply each migration exactly once', async () => {
    const other = await openDatabase({ url: test!.url, poolSize: 2 });
    try {
      const results = await Promise.all([migrate(test!.database), migrate(other)]);
      expect(results.flatMap((r) => r.applied)).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it('runs the same migrations on embedded PGlite', async () => {
    const embedded = await openDatabase({ dataDir: 'memory://' });
    try {
      const result = await migrate(embedded);
      expect(result.applied).toContain('001_identity');
      await embedded.db
        .insertInto('organizations')
        .values({ id: 'org_1', name: 'Acme', created_at: new Date(), prepaid_micro_usd: 5_000_000n })
        .execute();
      const row = await embedded.db.selectFrom('organizations').selectAll().executeTakeFirstOrThrow();
      expect(row.prepaid_micro_usd).toBe('5000000');
    } finally {
      await embedded.close();
    }
  });
});
