import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/support/test-app.js';
import { createKey, createOrganization } from '../../identity/index.js';
import { call, createKeyVia } from '../../../test/support/management-calls.js';

describe('PATCH /v1/keys/{id} (errors)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  const patch = (id: string, body: unknown, key = t.adminKey) => call(t, 'PATCH', `/v1/keys/${id}`, { key, body });

  async function scopesOf(id: string): Promise<string[]> {
    const row = await t.db.database.db.selectFrom('api_keys').select('scopes').where('id', '=', id).executeTakeFirstOrThrow();
    return row.scopes;
  }

  it('scopes beyond the caller’s are 403 SCOPE_ESCALATION and change nothing', async () => {
    const manager = await createKeyVia(t, { scopes: ['data', 'manage'] });
    const target = await createKeyVia(t, {});
    const response = await patch(target.id, { scopes: ['data', 'zkLogin'] }, manager.apiKey);
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('SCOPE_ESCALATION');
    expect(await scopesOf(target.id)).toEqual(['data']);
    // A manage key cannot lift itself either.
    const self = await patch(manager.id, { scopes: ['data', 'manage', 'streams'] }, manager.apiKey);
    expect(self.body.code).toBe('SCOPE_ESCALATION');
    expect(await scopesOf(manager.id)).toEqual(['data', 'manage']);
  });

  it.each([[['root']], [[]], [['r'.repeat(65)]]])('scopes %j are 400 INVALID_SCOPES', async (scopes) => {
    const target = await createKeyVia(t, {});
    const response = await patch(target.id, { scopes });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('INVALID_SCOPES');
  });

  it.each([['http://'], ['*.'], ['*'], ['example.com/path'], ['example.com:99999'], ['exa mple.com'], ['https://*.x.io:port']])(
    'allowed origin %j is 400 VALIDATION_FAILED',
    async (origin) => {
      const target = await createKeyVia(t, {});
      const response = await patch(target.id, { allowedOrigins: [origin] });
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('VALIDATION_FAILED');
    },
  );

  it('allowed origin "null" (the opaque origin of sandboxed and file:// pages) is 400 VALIDATION_FAILED naming the field and changes nothing', async () => {
    const target = await createKeyVia(t, { allowedOrigins: ['https://app.example.com'] });
    const response = await patch(target.id, { allowedOrigins: ['null'] });
    const issue = 'body.allowedOrigins.0: "null" is the origin of every sandboxed iframe and file:// page, not of one site; name the site\'s own origin';
    expect({ status: response.status, body: response.body }).toEqual({
      status: 400, body: { error: 'Validation failed', code: 'VALIDATION_FAILED', message: issue, issues: [issue], requestId: expect.any(String) },
    });
    const row = await t.db.database.db.selectFrom('api_keys').select('allowed_origins').where('id', '=', target.id).executeTakeFirstOrThrow();
    expect(row.allowed_origins).toEqual(['https://app.example.com']);
  });

  it.each([[{ perKeyRps: 0 }], [{ perKeyRps: 1.5 }], [{ perIpRps: -1 }], [{ perKeyRps: '5' }]])('rateLimit %j is 400 VALIDATION_FAILED', async (rateLimit) => {
    const target = await createKeyVia(t, {});
    const response = await patch(target.id, { rateLimit });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('VALIDATION_FAILED');
  });

  it('unknown and foreign keys are 404 KEY_NOT_FOUND', async () => {
    expect((await patch('key_nope', { name: 'x' })).body.code).toBe('KEY_NOT_FOUND');
    const other = await createOrganization(t.db.database.db, t.clock, { name: 'Other', tier: 'team' });
    const foreign = await createKey(t.db.database, t.clock, { kind: 'operator' }, { organizationId: other.organization.id, projectId: other.projects[0]!.id, name: 'theirs' });
    const response = await patch(foreign.id, { name: 'mine now' });
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('KEY_NOT_FOUND');
    const row = await t.db.database.db.selectFrom('api_keys').select('name').where('id', '=', foreign.id).executeTakeFirstOrThrow();
    expect(row.name).toBe('theirs');
  });

  it.each([[{ enabled: true }], [{ expiresAt: '2999-01-01T00:00:00.000Z' }], [{ nmae: 'typo' }], [{ rateLimit: { perKeyRps: 5, burst: 9 } }]])(
    'an unknown field %j is 400 VALIDATION_FAILED and changes nothing',
    async (body) => {
      const target = await createKeyVia(t, { name: 'strict' });
      const response = await patch(target.id, body);
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('VALIDATION_FAILED');
      const row = await t.db.database.db.selectFrom('api_keys').select(['name', 'expires_at', 'rate_limit']).where('id', '=', target.id).executeTakeFirstOrThrow();
      expect(row.name).toBe('strict');
      expect(new Date(row.expires_at).toISOString()).toBe(target.expiresAt);
    },
  );

  it('a disabled key is 409 KEY_DISABLED and stays as it was', async () => {
    const target = await createKeyVia(t, { name: 'gone' });
    expect((await call(t, 'DELETE', `/v1/keys/${target.id}`, { key: t.adminKey })).status).toBe(200);
    const response = await patch(target.id, { name: 'renamed' });
    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({ code: 'KEY_DISABLED', error: 'Key disabled' });
    const row = await t.db.database.db.selectFrom('api_keys').select(['name', 'enabled']).where('id', '=', target.id).executeTakeFirstOrThrow();
    expect(row).toEqual({ name: 'gone', enabled: false });
  });

  it('a key holding scopes the caller lacks cannot be edited by it, even without a scopes field: 403 SCOPE_ESCALATION', async () => {
    const manager = await createKeyVia(t, { scopes: ['data', 'manage'] });
    const stronger = await createKeyVia(t, { name: 'stronger', scopes: ['data', 'zkLogin'], allowedOrigins: ['https://app.example.com'] });
    const response = await patch(stronger.id, { allowedOrigins: [] }, manager.apiKey);
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('SCOPE_ESCALATION');
    const row = await t.db.database.db.selectFrom('api_keys').select('allowed_origins').where('id', '=', stronger.id).executeTakeFirstOrThrow();
    expect(row.allowed_origins).toEqual(['https://app.example.com']);
  });

  it('a key held to origins or rate caps cannot lift them, on itself or another key: 403 SCOPE_ESCALATION', async () => {
    const origin = { origin: 'https://app.example.com' };
    const manager = await createKeyVia(t, { scopes: ['data', 'manage'], allowedOrigins: ['*.example.com'], rateLimit: { perKeyRps: 100 } });
    const edit = (id: string, body: unknown) => call(t, 'PATCH', `/v1/keys/${id}`, { key: manager.apiKey, headers: origin, body });
    const restrictionsOf = (id: string) =>
      t.db.database.db.selectFrom('api_keys').select(['allowed_origins', 'rate_limit']).where('id', '=', id).executeTakeFirstOrThrow();

    for (const body of [{ allowedOrigins: [] }, { allowedOrigins: ['example.com'] }, { rateLimit: null }, { rateLimit: { perKeyRps: 101 } }, { rateLimit: { perKeyRps: null } }]) {
      const response = await edit(manager.id, body);
      expect(response.status, JSON.stringify(body)).toBe(403);
      expect(response.body.code).toBe('SCOPE_ESCALATION');
    }
    expect(await restrictionsOf(manager.id)).toEqual({ allowed_origins: ['*.example.com'], rate_limit: { perKeyRps: 100, perIpRps: null } });

    // An unrestricted key is beyond it even for a rename; narrowing it to within the editor is fine.
    const open = await createKeyVia(t, { name: 'open' });
    expect((await edit(open.id, { name: 'renamed' })).body.code).toBe('SCOPE_ESCALATION');
    const narrowed = await edit(open.id, { allowedOrigins: ['https://app.example.com'], rateLimit: { perKeyRps: 100 } });
    expect(narrowed.status).toBe(200);
    expect(await restrictionsOf(open.id)).toEqual({ allowed_origins: ['https://app.example.com'], rate_limit: { perKeyRps: 100, perIpRps: null } });
  });

  it('a key edited by a key never outlives the editor: its expiresAt is brought forward', async () => {
    const editor = await createKeyVia(t, { scopes: ['data', 'manage'], expiresInDays: 5 });
    const target = await createKeyVia(t, { expiresInDays: 300 });
    const response = await patch(target.id, { name: 'bounded' }, editor.apiKey);
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ id: target.id, name: 'bounded', expiresAt: editor.expiresAt });
    const row = await t.db.database.db.selectFrom('api_keys').select('expires_at').where('id', '=', target.id).executeTakeFirstOrThrow();
    expect(new Date(row.expires_at).toISOString()).toBe(editor.expiresAt);
    // A shorter-lived key keeps its own expiry.
    const shorter = await createKeyVia(t, { expiresInDays: 2 });
    const kept = await patch(shorter.id, { name: 'short' }, editor.apiKey);
    expect((kept.body.data as { expiresAt: string }).expiresAt).toBe(shorter.expiresAt);
  });
});
