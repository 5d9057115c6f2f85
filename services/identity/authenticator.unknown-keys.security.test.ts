import type { KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/index.js';
import type { Database } from '../db/index.js';
import { createTestDatabase, type TestDatabase } from '../../test/support/test-database.js';
import { Authenticator, UNKNOWN_KEY_LOOKUPS_PER_MINUTE, type AccessRequest } from './authenticator.js';
import { createKey } from './keys.js';
import { generateKeyValue } from './key-value.js';
import { createOrganization } from './organizations.js';
import { clientOf } from './unknown-key-budget.js';

/** Counts the queries sent to PostgreSQL through it: every key lookup is one. */
class QueryCounter implements KyselyPlugin {
  count = 0;
  transformQuery: KyselyPlugin['transformQuery'] = (args) => {
    this.count += 1;
    return args.node;
  };
  transformResult: KyselyPlugin['transformResult'] = async (args) => args.result;
}

const FLOODER = '198.51.100.9';
const NEIGHBOUR = '203.0.113.7';
const access = (clientIp: string): AccessRequest => ({ network: 'mainnet', scope: 'data', origin: undefined, clientIp });
const RATE_LIMITED = { code: 'RATE_LIMIT_EXCEEDED', status: 429, headers: { 'retry-after': '1' } };

describe('Authenticator: a flood of unknown keys does not become database load', () => {
  let test: TestDatabase;
  let organizationId: string;
  let projectId: string;
  let clock: ManualClock;
  let counter: QueryCounter;
  let counted: Database;

  beforeAll(async () => {
    test = await createTestDatabase();
    const created = await createOrganization(test.database.db, new ManualClock(), { name: 'Flooded', tier: 'team' });
    organizationId = created.organization.id;
    projectId = created.projects[0]!.id;
  });
  afterAll(async () => test.drop());

  /** An authenticator at the settings users run (default TTL and budget) whose lookups are counted. */
  function authenticator(ttlMs = 3_000): Authenticator {
    clock = new ManualClock();
    counter = new QueryCounter();
    counted = { ...test.database, db: test.database.db.withPlugin(counter) };
    return new Authenticator({ database: counted, clock, ttlMs });
  }

  const newKey = async (name: string) =>
    createKey(test.database, clock, { kind: 'operator' }, { organizationId, projectId, name, scopes: ['data'] });

  it(`different unknown keys from one client: ${UNKNOWN_KEY_LOOKUPS_PER_MINUTE} lookups a minute, then 429 before the database`, async () => {
    const auth = authenticator();
    expect(UNKNOWN_KEY_LOOKUPS_PER_MINUTE).toBe(60);
    for (let i = 0; i < 60; i++) {
      await expect(auth.authenticate(generateKeyValue(), access(FLOODER))).rejects.toMatchObject({ code: 'API_KEY_INVALID', status: 401 });
    }
    expect(counter.count).toBe(60);
    for (let i = 0; i < 500; i++) {
      await expect(auth.authenticate(generateKeyValue(), access(FLOODER))).rejects.toMatchObject(RATE_LIMITED);
    }
    expect(counter.count).toBe(60);
    // The bucket refills at 60 a minute: one lookup a second.
    clock.advance(999);
    await expect(auth.authenticate(generateKeyValue(), access(FLOODER))).rejects.toMatchObject(RATE_LIMITED);
    clock.advance(1);
    await expect(auth.authenticate(generateKeyValue(), access(FLOODER))).rejects.toMatchObject({ code: 'API_KEY_INVALID' });
    await expect(auth.authenticate(generateKeyValue(), access(FLOODER))).rejects.toMatchObject(RATE_LIMITED);
    expect(counter.count).toBe(61);
  });

  it('concurrent unknown keys are counted before their lookups answer', async () => {
    const auth = authenticator();
    const results = await Promise.allSettled(Array.from({ length: 200 }, () => auth.authenticate(generateKeyValue(), access(FLOODER))));
    const codes = results.map((result) => (result.status === 'rejected' ? (result.reason as { code: string }).code : 'ok'));
    expect(codes.filter((code) => code === 'API_KEY_INVALID')).toHaveLength(60);
    expect(codes.filter((code) => code === 'RATE_LIMIT_EXCEEDED')).toHaveLength(140);
    expect(counter.count).toBe(60);
  });

  it('the same unknown key again and again is one lookup per cache TTL, and spends nothing more', async () => {
    const auth = authenticator();
    const value = generateKeyValue();
    for (let i = 0; i < 1_000; i++) await expect(auth.authenticate(value, access(FLOODER))).rejects.toMatchObject({ code: 'API_KEY_INVALID' });
    expect(counter.count).toBe(1);
    clock.advance(3_000);
    await expect(auth.authenticate(value, access(FLOODER))).rejects.toMatchObject({ code: 'API_KEY_INVALID' });
    expect(counter.count).toBe(2);
  });

  it('lookups that find a key cost nothing: a client with many keys is never refused', async () => {
    // No cache: every request is a lookup.
    const auth = authenticator(0);
    const key = await newKey('busy');
    for (let i = 0; i < 200; i++) await expect(auth.authenticate(key.apiKey, access(NEIGHBOUR))).resolves.toMatchObject({ keyId: key.id });
    for (let i = 0; i < 60; i++) {
      await expect(auth.authenticate(generateKeyValue(), access(NEIGHBOUR))).rejects.toMatchObject({ code: 'API_KEY_INVALID' });
    }
    await expect(auth.authenticate(generateKeyValue(), access(NEIGHBOUR))).rejects.toMatchObject(RATE_LIMITED);
  });

  it('one client\'s flood refuses no other client; a key created during it works at once; a cached key keeps working', async () => {
    const auth = authenticator();
    const cached = await newKey('cached');
    await auth.authenticate(cached.apiKey, access(FLOODER));
    for (let i = 0; i < 100; i++) await auth.authenticate(generateKeyValue(), access(FLOODER)).catch(() => undefined);
    await expect(auth.authenticate(generateKeyValue(), access(FLOODER))).rejects.toMatchObject(RATE_LIMITED);
    const fresh = await newKey('fresh');
    auth.invalidate({ created: true });
    await expect(auth.authenticate(fresh.apiKey, access(NEIGHBOUR))).resolves.toMatchObject({ keyId: fresh.id });
    await expect(auth.authenticate(cached.apiKey, access(FLOODER))).resolves.toMatchObject({ keyId: cached.id });
  });

  it('IPv6 clients are counted per /64: another address of the block shares it, the next block does not', async () => {
    const auth = authenticator();
    for (let i = 0; i < 60; i++) await auth.authenticate(generateKeyValue(), access(`2001:db8:1:2::${i.toString(16)}`)).catch(() => undefined);
    await expect(auth.authenticate(generateKeyValue(), access('2001:db8:1:2:ffff:ffff:ffff:ffff'))).rejects.toMatchObject(RATE_LIMITED);
    await expect(auth.authenticate(generateKeyValue(), access('2001:db8:1:3::1'))).rejects.toMatchObject({ code: 'API_KEY_INVALID' });
    expect(counter.count).toBe(61);
  });

  it('clientOf: IPv4 as is, IPv4-mapped IPv6 as its IPv4, IPv6 by its /64 in one spelling', () => {
    expect(clientOf('198.51.100.9')).toBe('198.51.100.9');
    expect(clientOf('::ffff:198.51.100.9')).toBe('198.51.100.9');
    expect(clientOf('2001:DB8:0001:0002:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(clientOf('2001:db8:1:2::')).toBe('2001:db8:1:2::/64');
    expect(clientOf('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientOf('::1')).toBe('0:0:0:0::/64');
  });
});
