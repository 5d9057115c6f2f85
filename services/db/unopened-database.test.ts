import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { DatabaseNotOpened, unopenedDatabase } from './index.js';

describe('unopenedDatabase', () => {
  it('refuses every query and SQL text, naming what opened it, instead of answering empty rows', async () => {
    const database = unopenedDatabase('the route table worker');
    const query = database.db.selectFrom('api_keys').select('id').execute();
    await expect(query).rejects.toThrow(DatabaseNotOpened);
    await expect(query).rejects.toThrow('the route table worker opens no database: nothing may query it');
    await expect(sql`select 1`.execute(database.db)).rejects.toThrow(DatabaseNotOpened);
    await expect(database.exec('select 1')).rejects.toThrow('the route table worker opens no database: nothing may run SQL on it');
    await database.close();
  });

  it('lets an app subscribe to invalidations that never come', async () => {
    const database = unopenedDatabase('a test');
    const unsubscribe = await database.listen('key_invalidations', () => expect.unreachable());
    await unsubscribe();
    await database.close();
  });
});
