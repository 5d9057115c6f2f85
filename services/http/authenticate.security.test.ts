import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/support/test-app.js';
import { call, createKeyVia } from '../../test/support/management-calls.js';

const DAY = 86_400_000;

describe('authentication (spec: Authentication, Errors)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  const me = (headers: Record<string, string>, query = '') =>
    t.app.inject({ method: 'GET', url: `/mainnet/v1/auth/me${query}`, headers });

  describe('where the key travels', () => {
    it('x-api-key and Authorization: Bearer work', async () => {
      expect((await me({ 'x-api-key': t.adminKey })).statusCode).toBe(200);
      expect((await me({ authorization: `Bearer ${t.adminKey}` })).statusCode).toBe(200);
      expect((await me({ authorization: `bearer ${t.adminKey}` })).statusCode).toBe(200);
    });

    it.each(['api_key', 'API_KEY', 'api%5Fkey', 'Api%5fKEY'])(
      'the %s query parameter is refused on management and REST routes (HTTP gateways only): 401 saying to use the header',
      async (name) => {
        for (const path of ['/v1/auth/me', `/v1/accounts/0x${'1'.repeat(64)}`]) {
          const alone = await t.app.inject({ method: 'GET', url: `/mainnet${path}?${name}=${t.adminKey}` });
          const withHeader = await t.app.inject({ method: 'GET', url: `/mainnet${path}?${name}=${t.adminKey}`, headers: { 'x-api-key': t.adminKey } });
          for (const response of [alone, withHeader]) {
            expect(response.statusCode).toBe(401);
            expect(response.json()).toMatchObject({ error: 'Invalid API key', message: expect.stringContaining('x-api-key header') });
            expect(response.json().code).toBeUndefined();
          }
        }
      },
    );

    it.each([
      ['no key', {}, ''],
      ['an empty x-api-key', { 'x-api-key': '' }, ''],
      ['an unknown well-formed key', { 'x-api-key': `svc_pat_${'1'.repeat(44)}` }, ''],
      ['a malformed key', { 'x-api-key': 'hello' }, ''],
      ['the wrong prefix', { 'x-api-key': `sk_live_${'1'.repeat(44)}` }, ''],
      ['Basic instead of Bearer', { authorization: 'Basic dXNlcjpwYXNz' }, ''],
      ['a bare Bearer', { authorization: 'Bearer' }, ''],
      ['an empty api_key', {}, '?api_key='],
    ])('%s: 401 with error and no code', async (_what, headers, query) => {
      const response = await me(headers as Record<string, string>, query);
      expect(response.statusCode).toBe(401);
      const body = response.json();
      expect(body.code).toBeUndefined();
      expect(body.error).toEqual(expect.any(String));
      expect(body.requestId).toBe(response.headers['x-request-id']);
    });

    it('a disabled key is 401 without code', async () => {
      const key = await createKeyVia(t, {});
      await call(t, 'DELETE', `/v1/keys/${key.id}`, { key: t.adminKey });
      const response = await me({ 'x-api-key': key.apiKey });
      expect(response.statusCode).toBe(401);
      expect(response.json().code).toBeUndefined();
    });
  });

  it('an expired key is 401 API_KEY_EXPIRED from its expiresAt on', async () => {
    const key = await createKeyVia(t, { expiresInDays: 1 });
    const start = t.clock.now();
    try {
      t.clock.advance(DAY - 1);
      expect((await me({ 'x-api-key': key.apiKey })).statusCode).toBe(200);
      t.clock.advance(1);
      const response = await me({ 'x-api-key': key.apiKey });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({ code: 'API_KEY_EXPIRED', error: 'API key expired' });
    } finally {
      t.clock.set(start);
    }
  });

  it('a data-only key on /v1/keys is 403 INSUFFICIENT_SCOPE', async () => {
    const key = await createKeyVia(t, {});
    const response = await call(t, 'GET', '/v1/keys', { key: key.apiKey });
    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({ code: 'INSUFFICIENT_SCOPE', error: 'Insufficient scope' });
  });

  it('a mainnet key on the testnet endpoint is 403 NETWORK_MISMATCH with error, message and code', async () => {
    const response = await call(t, 'GET', '/v1/auth/me', { key: t.adminKey, network: 'testnet' });
    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({ error: 'Network mismatch', message: expect.any(String), code: 'NETWORK_MISMATCH' });
    const testnetKey = await createKeyVia(t, { projectId: t.projects.testnet, scopes: ['manage'] });
    expect((await call(t, 'GET', '/v1/keys', { key: testnetKey.apiKey })).body.code).toBe('NETWORK_MISMATCH');
    expect((await call(t, 'GET', '/v1/keys', { key: testnetKey.apiKey, network: 'testnet' })).status).toBe(200);
  });

  describe('allowed origins', () => {
    const cases: [string[], string | undefined, boolean][] = [
      // `example.com`: any scheme and port, that host only.
      [['example.com'], 'https://example.com', true],
      [['example.com'], 'http://example.com:8080', true],
      [['example.com'], 'chrome-extension://example.com', true],
      [['example.com'], 'https://www.example.com', false],
      [['example.com'], 'https://example.com.evil.io', false],
      [['example.com'], 'https://notexample.com', false],
      // `*.example.com`: any subdomain (any depth), not the apex.
      [['*.example.com'], 'https://app.example.com', true],
      [['*.example.com'], 'http://a.b.example.com:3000', true],
      [['*.example.com'], 'https://example.com', false],
      [['*.example.com'], 'https://evilexample.com', false],
      // A full origin matches exactly (a missing port is the scheme's default).
      [['https://app.example.com:8443'], 'https://app.example.com:8443', true],
      [['https://app.example.com:8443'], 'https://app.example.com', false],
      [['https://app.example.com:8443'], 'http://app.example.com:8443', false],
      [['https://app.example.com'], 'https://app.example.com', true],
      [['https://app.example.com'], 'https://app.example.com:443', true],
      [['https://app.example.com'], 'http://app.example.com', false],
      [['https://app.example.com'], 'https://app.example.com:444', false],
      [['http://localhost:3000'], 'http://localhost:3000', true],
      [['http://localhost:3000'], 'http://localhost:3001', false],
      [['localhost:3000'], 'https://localhost:3000', true],
      [['localhost:3000'], 'http://localhost:3001', false],
      // Case-insensitive host.
      [['Example.COM'], 'https://EXAMPLE.com', true],
      // A restricted key needs an Origin header; `null` is no origin.
      [['example.com'], undefined, false],
      [['example.com'], 'null', false],
      [['example.com'], 'not a url', false],
      [['a.io', 'b.io'], 'https://b.io', true],
    ];
    it.each(cases)('allowed %j, Origin %j → allowed: %j', async (allowedOrigins, origin, allowed) => {
      const key = await createKeyVia(t, { allowedOrigins });
      const headers: Record<string, string> = { 'x-api-key': key.apiKey };
      if (origin !== undefined) headers['origin'] = origin;
      const response = await me(headers);
      if (allowed) {
        expect(response.statusCode).toBe(200);
      } else {
        expect(response.statusCode).toBe(403);
        expect(response.json()).toMatchObject({ code: 'ORIGIN_NOT_ALLOWED', error: 'Origin not allowed' });
      }
    });

    it('a key without origins accepts any Origin or none', async () => {
      expect((await me({ 'x-api-key': t.adminKey, origin: 'https://anything.io' })).statusCode).toBe(200);
      expect((await me({ 'x-api-key': t.adminKey })).statusCode).toBe(200);
    });
  });

  it('a key whose organization_id is NULL is 401 AUTH_CONTEXT_MISSING', async () => {
    const key = await createKeyVia(t, {});
    await t.db.database.db.updateTable('api_keys').set({ organization_id: null }).where('id', '=', key.id).execute();
    const response = await me({ 'x-api-key': key.apiKey });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ code: 'AUTH_CONTEXT_MISSING' });
  });

  it('a key of a deleted organization is 404 ORGANIZATION_NOT_FOUND', async () => {
    const other = await createTestApp();
    try {
      await other.db.database.db.updateTable('organizations').set({ deleted_at: new Date(other.clock.now()) }).where('id', '=', other.organizationId).execute();
      for (const path of ['/v1/auth/me', '/v1/keys', '/v1/account']) {
        const response = await call(other, 'GET', path, { key: other.adminKey });
        expect(response.status).toBe(404);
        expect(response.body).toMatchObject({ code: 'ORGANIZATION_NOT_FOUND', error: 'Organization not found' });
      }
    } finally {
      await other.close();
    }
  });

  it('checks run network, then scope, then origin', async () => {
    const key = await createKeyVia(t, { allowedOrigins: ['example.com'] });
    expect((await call(t, 'GET', '/v1/keys', { key: key.apiKey, network: 'testnet' })).body.code).toBe('NETWORK_MISMATCH');
    expect((await call(t, 'GET', '/v1/keys', { key: key.apiKey })).body.code).toBe('INSUFFICIENT_SCOPE');
    expect((await call(t, 'GET', '/v1/auth/me', { key: key.apiKey })).body.code).toBe('ORIGIN_NOT_ALLOWED');
  });
});
