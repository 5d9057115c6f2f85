import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../services/core/index.js';
import { openDatabase, type Database } from '../../services/db/index.js';
import { buildGatewayApp } from '../../services/cli/gateway-app.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import type { App } from '../../services/route-contract/index.js';
import { createKey } from '../../services/identity/index.js';
import { call, createKeyVia } from '../support/management-calls.js';

/**
 * Two gateway processes (two apps, two database pools, two authenticators) on one database,
 * each with a 60 s key cache: a change made through one reaches the other through
 * LISTEN/NOTIFY, not through the cache expiring (the manual clock never moves).
 */
describe('key cache invalidation across processes', () => {
  let a: TestApp;
  let otherDatabase: Database;
  let b: App;

  beforeAll(async () => {
    a = await createTestApp({ env: { SUIGW_KEY_CACHE_TTL_MS: '60000' } });
    otherDatabase = await openDatabase({ url: a.db.url, poolSize: 2 });
    b = await buildGatewayApp({ config: a.config, database: otherDatabase, clock: a.clock, logger: createLogger('silent') });
    await b.ready();
  });
  afterAll(async () => {
    await b.close();
    await otherDatabase.close();
    await a.close();
  });

  const onB = async (method: string, path: string, key: string) => {
    const response = await b.inject({ method: method as 'GET', url: `/mainnet${path}`, headers: { 'x-api-key': key } });
    return { status: response.statusCode, code: (response.json() as { code?: string }).code };
  };

  /** Polls until `check` holds: correctness, not a timing assertion (the deadline only bounds a hang on a loaded machine). */
  async function eventually(check: () => Promise<boolean>): Promise<void> {
    const deadline = Date.now() + 20_000;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error('the change did not reach the other process within 20 s');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  it('the cache is warm: a change written without NOTIFY is not seen (so the tests below prove invalidation)', async () => {
    const key = await createKeyVia(a, { scopes: ['data', 'manage'] });
    expect((await onB('GET', '/v1/keys', key.apiKey)).status).toBe(200);
    await a.db.database.db.updateTable('api_keys').set({ scopes: ['data'] }).where('id', '=', key.id).execute();
    for (let i = 0; i < 5; i++) expect((await onB('GET', '/v1/keys', key.apiKey)).status).toBe(200);
  });

  it('a key disabled through one process is refused by the other', async () => {
    const key = await createKeyVia(a, {});
    expect((await onB('GET', '/v1/auth/me', key.apiKey)).status).toBe(200);
    expect((await call(a, 'DELETE', `/v1/keys/${key.id}`, { key: a.adminKey })).status).toBe(200);
    await eventually(async () => (await onB('GET', '/v1/auth/me', key.apiKey)).status === 401);
  });

  it('a key re-scoped through one process has the new scopes on the other, both ways', async () => {
    const key = await createKeyVia(a, { scopes: ['data', 'manage'] });
    expect((await onB('GET', '/v1/keys', key.apiKey)).status).toBe(200);
    expect((await call(a, 'PATCH', `/v1/keys/${key.id}`, { key: a.adminKey, body: { scopes: ['data'] } })).status).toBe(200);
    await eventually(async () => (await onB('GET', '/v1/keys', key.apiKey)).code === 'INSUFFICIENT_SCOPE');
    expect((await call(a, 'PATCH', `/v1/keys/${key.id}`, { key: a.adminKey, body: { scopes: ['data', 'manage'] } })).status).toBe(200);
    await eventually(async () => (await onB('GET', '/v1/keys', key.apiKey)).status === 200);
  });

  it('an origin restriction added through one process applies on the other', async () => {
    const key = await createKeyVia(a, {});
    expect((await onB('GET', '/v1/auth/me', key.apiKey)).status).toBe(200);
    await call(a, 'PATCH', `/v1/keys/${key.id}`, { key: a.adminKey, body: { allowedOrigins: ['example.com'] } });
    await eventually(async () => (await onB('GET', '/v1/auth/me', key.apiKey)).code === 'ORIGIN_NOT_ALLOWED');
  });

  it('a lost listening connection is re-established, and what was missed meanwhile is not served from the cache', async () => {
    const key = await createKeyVia(a, {});
    expect((await onB('GET', '/v1/auth/me', key.apiKey)).status).toBe(200);
    // Cut every LISTEN connection of this database (a server restart or failover looks the same).
    const cut = await sql<{ pid: number }>`
      select pid from pg_stat_activity
      where datname = current_database() and query ilike 'LISTEN%' and pg_terminate_backend(pid)`.execute(a.db.database.db);
    expect(cut.rows.length).toBeGreaterThanOrEqual(2);
    // Changed while nobody listens: only the reconnection's cache flush can make B see it.
    await a.db.database.db.updateTable('api_keys').set({ enabled: false }).where('id', '=', key.id).execute();
    await eventually(async () => (await onB('GET', '/v1/auth/me', key.apiKey)).status === 401);
    // And notifications flow again afterwards.
    const later = await createKeyVia(a, {});
    expect((await onB('GET', '/v1/auth/me', later.apiKey)).status).toBe(200);
    expect((await call(a, 'DELETE', `/v1/keys/${later.id}`, { key: a.adminKey })).status).toBe(200);
    await eventually(async () => (await onB('GET', '/v1/auth/me', later.apiKey)).status === 401);
  });

  it('a key value tried before it existed is accepted once created (the negative cache is dropped)', async () => {
    // The value is fixed so it can be tried before its creation.
    const value = `svc_pat_${'2'.repeat(44)}`;
    expect((await onB('GET', '/v1/auth/me', value)).status).toBe(401);
    await createKey(a.db.database, a.clock, { kind: 'operator' }, { organizationId: a.organizationId, projectId: a.projects.mainnet, name: 'late', value });
    await eventually(async () => (await onB('GET', '/v1/auth/me', value)).status === 200);
  });
});
