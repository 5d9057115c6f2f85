import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/support/test-app.js';
import { call, createKeyVia, type CallResult } from '../../../test/support/management-calls.js';

describe('POST /v1/keys (security)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  it('asking for a scope the caller lacks is 403 SCOPE_ESCALATION and creates nothing', async () => {
    const manager = await createKeyVia(t, { scopes: ['data', 'manage'] });
    for (const scopes of [['zkLogin'], ['data', 'streams'], ['data', 'manage', 'zkLogin']]) {
      const response = await call(t, 'POST', '/v1/keys', { key: manager.apiKey, body: { name: 'up', projectId: t.projects.mainnet, scopes } });
      expect(response.status).toBe(403);
      expect(response.body).toMatchObject({ code: 'SCOPE_ESCALATION', error: 'Scope escalation' });
    }
    const list = await call(t, 'GET', '/v1/keys', { key: t.adminKey });
    expect((list.body.data as { name: string }[]).some((k) => k.name === 'up')).toBe(false);
  });

  it('a key held to origins passes them on: inherited when none are named, narrower kept, wider or none 403 SCOPE_ESCALATION', async () => {
    const held = ['*.example.com', 'http://localhost:3000'];
    const manager = await createKeyVia(t, { scopes: ['data', 'manage'], allowedOrigins: held });
    const create = (body: Record<string, unknown>) =>
      call(t, 'POST', '/v1/keys', { key: manager.apiKey, headers: { origin: 'https://app.example.com' }, body: { name: 'held', projectId: t.projects.mainnet, ...body } });

    const inherited = await create({});
    expect(inherited.status).toBe(201);
    expect((inherited.body.data as { allowedOrigins: string[] }).allowedOrigins).toEqual(held);
    const refused = await call(t, 'GET', '/v1/auth/me', { key: (inherited.body.data as { apiKey: string }).apiKey, headers: { origin: 'https://evil.io' } });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('ORIGIN_NOT_ALLOWED');

    const narrower = ['https://app.example.com', '*.b.example.com', '*.example.com:8443', 'http://localhost:3000'];
    const kept = await create({ allowedOrigins: narrower });
    expect(kept.status).toBe(201);
    expect((kept.body.data as { allowedOrigins: string[] }).allowedOrigins).toEqual(narrower);

    const before = ((await call(t, 'GET', '/v1/keys', { key: t.adminKey })).body.data as unknown[]).length;
    for (const allowedOrigins of [[], ['example.com'], ['https://evil.io'], ['localhost:3000'], ['http://localhost'], ['https://localhost:3000'], ['*.example.com', 'other.io']]) {
      const response = await create({ allowedOrigins });
      expect(response.status, JSON.stringify(allowedOrigins)).toBe(403);
      expect(response.body).toMatchObject({ code: 'SCOPE_ESCALATION', error: 'Scope escalation' });
    }
    expect(((await call(t, 'GET', '/v1/keys', { key: t.adminKey })).body.data as unknown[]).length).toBe(before);
  });

  it('a key with rate caps passes them on: inherited when not named, lowered or equal kept, raised or lifted 403 SCOPE_ESCALATION', async () => {
    const manager = await createKeyVia(t, { scopes: ['data', 'manage'], rateLimit: { perKeyRps: 100, perIpRps: 40 } });
    const create = (rateLimit?: Record<string, unknown>) =>
      call(t, 'POST', '/v1/keys', { key: manager.apiKey, body: { name: 'capped', projectId: t.projects.mainnet, ...(rateLimit ? { rateLimit } : {}) } });
    const rateLimitOf = (response: CallResult) => (response.body.data as { rateLimit: unknown }).rateLimit;

    expect(rateLimitOf(await create())).toEqual({ perKeyRps: 100, perIpRps: 40 });
    expect(rateLimitOf(await create({ perKeyRps: 50 }))).toEqual({ perKeyRps: 50, perIpRps: 40 });
    expect(rateLimitOf(await create({ perKeyRps: 100, perIpRps: 40 }))).toEqual({ perKeyRps: 100, perIpRps: 40 });
    for (const rateLimit of [{ perKeyRps: 101 }, { perKeyRps: null }, { perIpRps: 41 }, { perIpRps: null }]) {
      const response = await create(rateLimit);
      expect(response.status, JSON.stringify(rateLimit)).toBe(403);
      expect(response.body).toMatchObject({ code: 'SCOPE_ESCALATION', error: 'Scope escalation' });
    }
  });

  it('a data-only key cannot create keys: 403 INSUFFICIENT_SCOPE', async () => {
    const reader = await createKeyVia(t, {});
    const response = await call(t, 'POST', '/v1/keys', { key: reader.apiKey, body: { name: 'x', projectId: t.projects.mainnet } });
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('INSUFFICIENT_SCOPE');
  });

  it('without a key: 401 without code, before the body is looked at', async () => {
    const response = await call(t, 'POST', '/v1/keys', { body: { nonsense: true } });
    expect(response.status).toBe(401);
    expect(response.body.code).toBeUndefined();
    expect(response.body.error).toEqual(expect.any(String));
  });

  it('the secret is in the 201 only: never listed, never stored (the table holds its SHA-256)', async () => {
    const created = await createKeyVia(t, { name: 'secret-check' });
    const list = await call(t, 'GET', '/v1/keys', { key: t.adminKey });
    const listed = JSON.stringify(list.body);
    expect(listed).not.toContain(created.apiKey);
    expect(listed).not.toContain(created.apiKey.slice(12));
    expect(listed).not.toContain('apiKey');

    const row = await t.db.database.db.selectFrom('api_keys').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(row.hash).toBe(createHash('sha256').update(created.apiKey).digest('hex'));
    expect(row.start).toBe(created.apiKey.slice(0, 12));
    // No column of any table holds the value or its secret part.
    const dump = await sql<{ dump: string }>`select string_agg(t::text, '|') as dump from api_keys t`.execute(t.db.database.db);
    expect(dump.rows[0]!.dump).not.toContain(created.apiKey.slice(12));
  });
});
