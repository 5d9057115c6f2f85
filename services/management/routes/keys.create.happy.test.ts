import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/support/test-app.js';
import { call, createKeyVia } from '../../../test/support/management-calls.js';

const DAY = 24 * 60 * 60 * 1000;

describe('POST /v1/keys (happy)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  it('201 with the spec shape, default scopes [data] and a 30-day lifetime from the clock', async () => {
    const response = await call(t, 'POST', '/v1/keys', { key: t.adminKey, body: { name: 'reader', projectId: t.projects.mainnet } });
    expect(response.status).toBe(201);
    const data = response.body.data as Record<string, unknown>;
    expect(Object.keys(data).sort()).toEqual(['allowedOrigins', 'apiKey', 'expiresAt', 'id', 'name', 'projectId', 'rateLimit', 'scopes']);
    expect(data).toMatchObject({
      name: 'reader',
      projectId: t.projects.mainnet,
      scopes: ['data'],
      allowedOrigins: [],
      rateLimit: { perKeyRps: null, perIpRps: null },
      expiresAt: new Date(t.clock.now() + 30 * DAY).toISOString(),
    });
    expect(data['apiKey']).toMatch(/^svc_pat_[1-9A-HJ-NP-Za-km-z]{32,}$/);
  });

  it.each([1, 365])('expiresInDays %i sets expiresAt that many days after now', async (days) => {
    const created = await createKeyVia(t, { expiresInDays: days });
    expect(created.expiresAt).toBe(new Date(t.clock.now() + days * DAY).toISOString());
  });

  it('the new key authenticates on its project network and carries the requested scopes', async () => {
    const created = await createKeyVia(t, { scopes: ['data', 'streams'], projectId: t.projects.testnet });
    expect(created.scopes).toEqual(['data', 'streams']);
    const me = await call(t, 'GET', '/v1/auth/me', { key: created.apiKey, network: 'testnet' });
    expect(me.status).toBe(200);
    expect(me.body.data).toMatchObject({ apiKey: { id: created.id }, network: 'testnet', project: { id: t.projects.testnet } });
  });

  it('a key made by a key never outlives the creating key', async () => {
    const parent = await createKeyVia(t, { scopes: ['data', 'manage'], expiresInDays: 10 });
    const child = await createKeyVia(t, { expiresInDays: 365 }, parent.apiKey);
    expect(child.expiresAt).toBe(parent.expiresAt);
    const shorter = await createKeyVia(t, { expiresInDays: 3 }, parent.apiKey);
    expect(shorter.expiresAt).toBe(new Date(t.clock.now() + 3 * DAY).toISOString());
  });

  it('duplicate scopes are stored once', async () => {
    const created = await createKeyVia(t, { scopes: ['data', 'data', 'manage'] });
    expect(created.scopes).toEqual(['data', 'manage']);
  });

  it('the created key appears in GET /v1/keys as enabled, with start and prefix', async () => {
    const created = await createKeyVia(t, { name: 'listed' });
    const list = await call(t, 'GET', '/v1/keys', { key: t.adminKey });
    expect(list.status).toBe(200);
    const item = (list.body.data as Record<string, unknown>[]).find((k) => k['id'] === created.id);
    expect(item).toEqual({
      id: created.id,
      name: 'listed',
      start: created.apiKey.slice(0, 12),
      prefix: 'svc_pat_',
      projectId: t.projects.mainnet,
      scopes: ['data'],
      allowedOrigins: [],
      rateLimit: { perKeyRps: null, perIpRps: null },
      enabled: true,
      expiresAt: created.expiresAt,
      createdAt: new Date(t.clock.now()).toISOString(),
    });
  });

  it('a name loses leading and trailing white space, as README says, and nothing else', async () => {
    const response = await call(t, 'POST', '/v1/keys', { key: t.adminKey, body: { name: ' \t web  app \n', projectId: t.projects.mainnet } });
    expect(response.status).toBe(201);
    expect((response.body.data as { name: string }).name).toBe('web  app');
  });

  it('the OpenAPI document says the name is trimmed before its 1 to 100 characters are counted', async () => {
    const document = (await t.app.inject({ url: '/v1/openapi.json' })).json();
    const name = document.paths['/v1/keys'].post.requestBody.content['application/json'].schema.properties.name;
    expect(name).toMatchObject({ minLength: 1, maxLength: 100 });
    expect(name.description).toBe('Leading and trailing white space is removed first; 1 to 100 characters must remain.');
    // What the description says: 100 characters and trailing spaces are a name, three spaces are not.
    expect((await call(t, 'POST', '/v1/keys', { key: t.adminKey, body: { name: `${'a'.repeat(100)}  `, projectId: t.projects.mainnet } })).status).toBe(201);
    expect((await call(t, 'POST', '/v1/keys', { key: t.adminKey, body: { name: '   ', projectId: t.projects.mainnet } })).body.code).toBe('VALIDATION_FAILED');
  });

  it('a name with ordinary text, tabs and non-Latin characters is stored and echoed as sent', async () => {
    const name = 'Café\t日本 🚀';
    const response = await call(t, 'POST', '/v1/keys', { key: t.adminKey, body: { name, projectId: t.projects.mainnet } });
    expect(response.status).toBe(201);
    const data = response.body.data as { id: string; name: string };
    expect(data.name).toBe(name);
    const row = await t.db.database.db.selectFrom('api_keys').select('name').where('id', '=', data.id).executeTakeFirstOrThrow();
    expect(row.name).toBe(name);
  });
});
