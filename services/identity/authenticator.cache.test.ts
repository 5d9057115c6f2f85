import type { KyselyPlugin, PluginTransformResultArgs, QueryResult, UnknownRow } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/index.js';
import type { Database } from '../db/index.js';
import { createTestDatabase, type TestDatabase } from '../../test/support/test-database.js';
import { Authenticator } from './authenticator.js';
import { createKey, updateKey } from './keys.js';
import { generateKeyValue } from './key-value.js';
import { createOrganization } from './organizations.js';

/** Holds every query result until released: lets a test change the data while a lookup is in flight. */
class Gate implements KyselyPlugin {
  #closed: Promise<void> | undefined;
  #open: (() => void) | undefined;
  close(): void {
    this.#closed = new Promise((resolve) => (this.#open = resolve));
  }
  open(): void {
    this.#open?.();
    this.#closed = undefined;
  }
  transformQuery: KyselyPlugin['transformQuery'] = (args) => args.node;
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    await this.#closed;
    return args.result;
  }
}

describe('Authenticator cache', () => {
  let test: TestDatabase;
  const clock = new ManualClock();
  const gate = new Gate();
  let gated: Database;
  let organizationId: string;
  let projectId: string;

  beforeAll(async () => {
    test = await createTestDatabase();
    gated = { ...test.database, db: test.database.db.withPlugin(gate) };
    const created = await createOrganization(test.database.db, clock, { name: 'Cache', tier: 'team' });
    organizationId = created.organization.id;
    projectId = created.projects[0]!.id;
  });
  afterAll(async () => test.drop());

  const access = { network: 'mainnet' as const, scope: 'manage' as const, origin: undefined, clientIp: '127.0.0.1' };

  it('serves a warm key from the cache until an invalidation names it', async () => {
    const authenticator = new Authenticator({ database: test.database, clock, ttlMs: 60_000 });
    const key = await createKey(test.database, clock, { kind: 'operator' }, { organizationId, projectId, name: 'warm', scopes: ['data', 'manage'] });
    await authenticator.authenticate(key.apiKey, access);
    await test.database.db.updateTable('api_keys').set({ scopes: ['data'] }).where('id', '=', key.id).execute();
    await expect(authenticator.authenticate(key.apiKey, access)).resolves.toMatchObject({ keyId: key.id });
    authenticator.invalidate({ keyId: key.id });
    await expect(authenticator.authenticate(key.apiKey, access)).rejects.toMatchObject({ code: 'INSUFFICIENT_SCOPE' });
  });

  it('expires an entry after the TTL by the clock', async () => {
    const authenticator = new Authenticator({ database: test.database, clock, ttlMs: 1_000 });
    const key = await createKey(test.database, clock, { kind: 'operator' }, { organizationId, projectId, name: 'ttl', scopes: ['data', 'manage'] });
    await authenticator.authenticate(key.apiKey, access);
    await test.database.db.updateTable('api_keys').set({ scopes: ['data'] }).where('id', '=', key.id).execute();
    clock.advance(999);
    await expect(authenticator.authenticate(key.apiKey, access)).resolves.toBeDefined();
    clock.advance(1);
    await expect(authenticator.authenticate(key.apiKey, access)).rejects.toMatchObject({ code: 'INSUFFICIENT_SCOPE' });
  });

  it('an invalidation during a lookup keeps that lookup’s (stale) answer out of the cache', async () => {
    const authenticator = new Authenticator({ database: gated, clock, ttlMs: 60_000 });
    const key = await createKey(test.database, clock, { kind: 'operator' }, { organizationId, projectId, name: 'race', scopes: ['data', 'manage'] });
    gate.close();
    const inFlight = authenticator.authenticate(key.apiKey, access);
    // Let the lookup read the row, then change the key and deliver the invalidation before the
    // lookup's answer comes back, as NOTIFY can do on a busy process.
    await new Promise((resolve) => setTimeout(resolve, 100));
    await updateKey(test.database, { kind: 'operator' }, organizationId, key.id, { scopes: ['data'] });
    authenticator.invalidate({ keyId: key.id });
    gate.open();
    await expect(inFlight).resolves.toMatchObject({ keyId: key.id });
    await expect(authenticator.authenticate(key.apiKey, access)).rejects.toMatchObject({ code: 'INSUFFICIENT_SCOPE' });
  });

  it('a flood of unknown well-formed keys does not evict a real one', async () => {
    const authenticator = new Authenticator({ database: test.database, clock, ttlMs: 60_000, maxEntries: 10 });
    const key = await createKey(test.database, clock, { kind: 'operator' }, { organizationId, projectId, name: 'flooded', scopes: ['data', 'manage'] });
    await authenticator.authenticate(key.apiKey, access);
    for (let i = 0; i < 50; i++) {
      await expect(authenticator.authenticate(generateKeyValue(), access)).rejects.toMatchObject({ code: 'API_KEY_INVALID' });
    }
    // Changed without a notification: only a cached answer still grants `manage`.
    await test.database.db.updateTable('api_keys').set({ scopes: ['data'] }).where('id', '=', key.id).execute();
    await expect(authenticator.authenticate(key.apiKey, access)).resolves.toMatchObject({ keyId: key.id });
  });

  it('an organization change forgets every key of that organization and no other', async () => {
    const authenticator = new Authenticator({ database: test.database, clock, ttlMs: 60_000 });
    const other = await createOrganization(test.database.db, clock, { name: 'Other', tier: 'team' });
    const mine = await createKey(test.database, clock, { kind: 'operator' }, { organizationId, projectId, name: 'mine', scopes: ['data', 'manage'] });
    const theirs = await createKey(test.database, clock, { kind: 'operator' }, {
      organizationId: other.organization.id,
      projectId: other.projects[0]!.id,
      name: 'theirs',
      scopes: ['data', 'manage'],
    });
    await authenticator.authenticate(mine.apiKey, access);
    await authenticator.authenticate(theirs.apiKey, access);
    await test.database.db.updateTable('api_keys').set({ scopes: ['data'] }).where('id', 'in', [mine.id, theirs.id]).execute();
    authenticator.invalidate({ organizationId });
    await expect(authenticator.authenticate(mine.apiKey, access)).rejects.toMatchObject({ code: 'INSUFFICIENT_SCOPE' });
    await expect(authenticator.authenticate(theirs.apiKey, access)).resolves.toMatchObject({ keyId: theirs.id });
  });
});
