import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/support/test-app.js';
import { createKey, createOrganization } from '../../identity/index.js';
import { call } from '../../../test/support/management-calls.js';

describe('POST /v1/keys (errors)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  const post = (body: Record<string, unknown>, key = t.adminKey) =>
    call(t, 'POST', '/v1/keys', { key, body: { name: 'k', projectId: t.projects.mainnet, ...body } });

  async function keyCount(): Promise<number> {
    const rows = await t.db.database.db.selectFrom('api_keys').select('id').execute();
    return rows.length;
  }

  it.each([0, 366, 1.5, -1, '30', null])('expiresInDays %j is 400 VALIDATION_FAILED and creates nothing', async (days) => {
    const before = await keyCount();
    const response = await post({ expiresInDays: days });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'VALIDATION_FAILED', error: expect.any(String) });
    expect(await keyCount()).toBe(before);
  });

  it.each([[['data', 'admin']], [['DATA']], [[]], [['']], [['x'.repeat(65)]]])('scopes %j is 400 INVALID_SCOPES', async (scopes) => {
    const response = await post({ scopes });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'INVALID_SCOPES', error: 'Invalid scopes' });
  });

  it('a long unknown scope name is quoted in the error cut to 64 characters', async () => {
    const response = await post({ scopes: ['data', 'y'.repeat(1_000)] });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      code: 'INVALID_SCOPES', message: `Unknown scope: ${'y'.repeat(64)}…. Allowed: data, streams, manage, zkLogin.`,
    });
  });

  it('an unknown project is 404 PROJECT_NOT_FOUND', async () => {
    const response = await post({ projectId: 'proj_doesnotexist' });
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ code: 'PROJECT_NOT_FOUND', error: 'Project not found' });
  });

  it("another organization's project is 404 PROJECT_NOT_FOUND", async () => {
    const other = await createOrganization(t.db.database.db, t.clock, { name: 'Other', tier: 'team' });
    const response = await post({ projectId: other.projects[0]!.id });
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('PROJECT_NOT_FOUND');
  });

  it.each([
    [{ name: '' }],
    [{ name: '   ' }],
    [{ name: 'x'.repeat(101) }],
    [{ name: undefined }],
    [{ projectId: undefined }],
    // PostgreSQL text cannot hold NUL: a 400, never a 500.
    [{ name: 'a\u0000b' }],
    [{ projectId: 'proj_\u0000' }],
    // Unknown or misspelt fields are refused, not ignored (a silently dropped `scope` would
    // hand out the default scopes).
    [{ scope: ['manage'] }],
    [{ expiresAt: '2999-01-01T00:00:00.000Z' }],
    [{ rateLimit: { perKeyRps: 5, burst: 10 } }],
  ])('a bad or missing field %j is 400 VALIDATION_FAILED', async (patch) => {
    const response = await post(patch);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('VALIDATION_FAILED');
  });

  it.each([
    ['an array', [], 'body: Invalid input: expected object, received array'],
    ['a field of the wrong type', { name: 7, projectId: 'proj_x' }, 'body.name: Invalid input: expected string, received number'],
  ])('a body that is %s names where it failed: %j', async (_what, body, issue) => {
    const response = await t.app.inject({ method: 'POST', url: '/mainnet/v1/keys', headers: { 'x-api-key': t.adminKey }, payload: body as object });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: 'Validation failed', message: issue, code: 'VALIDATION_FAILED', issues: [issue], requestId: expect.any(String) });
  });

  it('an invalid allowed origin is 400 VALIDATION_FAILED naming the entry', async () => {
    const response = await post({ allowedOrigins: ['https://exa mple.com'] });
    const issue = 'body.allowedOrigins.0: "https://exa mple.com" is not of the form [scheme://][*.]host[:port]';
    expect({ status: response.status, body: response.body }).toEqual({
      status: 400, body: { error: 'Validation failed', code: 'VALIDATION_FAILED', message: issue, issues: [issue], requestId: expect.any(String) },
    });
  });

  // `Origin: null` is what every sandboxed iframe and file:// page sends, wherever it is served:
  // allowing it would allow them all, so the entry is refused rather than stored.
  it.each([['null'], [' NULL ']])('allowed origin %j (the opaque origin) is 400 VALIDATION_FAILED naming the field; nothing is created', async (entry) => {
    const before = await keyCount();
    const response = await post({ allowedOrigins: ['https://app.example.com', entry] });
    const issue = 'body.allowedOrigins.1: "null" is the origin of every sandboxed iframe and file:// page, not of one site; name the site\'s own origin';
    expect({ status: response.status, body: response.body }).toEqual({
      status: 400, body: { error: 'Validation failed', code: 'VALIDATION_FAILED', message: issue, issues: [issue], requestId: expect.any(String) },
    });
    expect(await keyCount()).toBe(before);
  });

  it('50 enabled keys is 403 KEY_LIMIT_REACHED; disabling one frees a place', async () => {
    // The admin key is the first; fill to 50 directly (the HTTP path is what is under test).
    const enabled = async () =>
      (await t.db.database.db.selectFrom('api_keys').select('id').where('organization_id', '=', t.organizationId).where('enabled', '=', true).execute()).length;
    const missing = 50 - (await enabled());
    const ids: string[] = [];
    for (let i = 0; i < missing; i++) {
      const key = await createKey(t.db.database, t.clock, { kind: 'operator' }, { organizationId: t.organizationId, projectId: t.projects.mainnet, name: `fill ${i}` });
      ids.push(key.id);
    }
    expect(await enabled()).toBe(50);
    const refused = await post({});
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'KEY_LIMIT_REACHED', error: 'Key limit reached' });
    expect(await enabled()).toBe(50);

    const disabled = await call(t, 'DELETE', `/v1/keys/${ids[0]}`, { key: t.adminKey });
    expect(disabled.status).toBe(200);
    const accepted = await post({});
    expect(accepted.status).toBe(201);
    expect((await post({})).status).toBe(403);
  });

  it.each([
    ['a lone high surrogate', '{"name":"a\\ud800b"}'],
    ['a lone low surrogate', '{"name":"\\udc00"}'],
    ['a control character', '{"name":"bell\\u0007"}'],
    ['an escape character', '{"name":"\\u001b[31mred"}'],
    ['a bidirectional override', '{"name":"key\\u202egnp.exe"}'],
  ])('a name with %s is 400 VALIDATION_FAILED and creates nothing', async (_what, name) => {
    const before = await keyCount();
    const body = name.replace('}', `,"projectId":"${t.projects.mainnet}"}`);
    const response = await t.app.inject({
      method: 'POST',
      url: '/mainnet/v1/keys',
      headers: { 'x-api-key': t.adminKey, 'content-type': 'application/json' },
      payload: body,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().code).toBe('VALIDATION_FAILED');
    expect(await keyCount()).toBe(before);
  });

  it('a body that is not valid UTF-8 is 400 INVALID_BODY, never stored with U+FFFD in place of the bytes', async () => {
    const before = await keyCount();
    const payload = Buffer.concat([
      Buffer.from('{"name":"caf'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from(`","projectId":"${t.projects.mainnet}"}`),
    ]);
    const response = await t.app.inject({
      method: 'POST',
      url: '/mainnet/v1/keys',
      headers: { 'x-api-key': t.adminKey, 'content-type': 'application/json' },
      payload,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'INVALID_BODY', message: 'The body is not valid UTF-8.' });
    expect(await keyCount()).toBe(before);
  });
});
