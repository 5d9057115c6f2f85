import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/support/test-database.js';
import { createLogger, ManualClock } from '../core/index.js';
import { UsageRecorder } from './usage.js';

describe('usage recorder', () => {
  let db: TestDatabase;
  const clock = new ManualClock();
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => db.drop());

  const rows = () =>
    db.database.db.selectFrom('usage_minutes').select(['key_id', 'minute', 'requests', 'credits']).orderBy('minute').orderBy('key_id').execute();

  it('adds counts per key and minute in one batch, and a failed flush keeps them for the next, written once', async () => {
    const recorder = new UsageRecorder({ db: db.database.db, clock, logger: createLogger('silent'), flushIntervalMs: 0 });
    const event = { organizationId: 'org_1', network: 'mainnet', route: 'GET /v1/x' };
    recorder.record({ ...event, keyId: 'key_a', credits: 1 });
    recorder.record({ ...event, keyId: 'key_a', credits: 0 });
    recorder.record({ ...event, keyId: 'key_b', credits: 5 });
    clock.advance(60_000);
    recorder.record({ ...event, keyId: 'key_a', credits: 1 });

    await sql`ALTER TABLE usage_minutes RENAME TO usage_minutes_away`.execute(db.database.db);
    await recorder.flush();
    expect(recorder.pending()).toEqual({ requests: 4, credits: 7 });
    await sql`ALTER TABLE usage_minutes_away RENAME TO usage_minutes`.execute(db.database.db);

    await recorder.close();
    expect(recorder.pending()).toEqual({ requests: 0, credits: 0 });
    const first = new Date(clock.now() - 60_000);
    const second = new Date(clock.now());
    expect(await rows()).toEqual([
      { key_id: 'key_a', minute: first, requests: '2', credits: '1' },
      { key_id: 'key_b', minute: first, requests: '1', credits: '5' },
      { key_id: 'key_a', minute: second, requests: '1', credits: '1' },
    ]);
  });
});
