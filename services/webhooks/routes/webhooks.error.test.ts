import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/support/test-app.js';
import { call, createKeyVia } from '../../../test/support/management-calls.js';
import { createKey, createOrganization } from '../../identity/index.js';
import { PLANS } from '../../plans/index.js';

const VALID = { url: 'https://hooks.example.com/sui', type: 'coin', filters: { coinTypes: ['0x2::sui::SUI'] } };

describe('/v1/webhooks (errors)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ tier: 'team' });
  });
  afterAll(async () => t.close());

  it.each([
    ['an unknown type', { ...VALID, type: 'nft' }],
    ['filters of another type', { ...VALID, type: 'event' }],
    ['an empty list', { ...VALID, filters: { coinTypes: [] } }],
    ['a malformed Move type', { ...VALID, filters: { coinTypes: ['sui::SUI'] } }],
    ['no url', { type: 'coin', filters: VALID.filters }],
    ['a url too long', { ...VALID, url: `https://hooks.example.com/${'a'.repeat(2_048)}` }],
    ['an unknown top-level field', { ...VALID, secret: 'whsec_mine' }],
  ])('400 VALIDATION_FAILED for %s', async (_case, body) => {
    const response = await call(t, 'POST', '/v1/webhooks', { key: t.adminKey, body });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('VALIDATION_FAILED');
  });

  it.each([
    ['http (HTTPS required outside dev)', 'http://hooks.example.com/sui', 'The URL must use https.'],
    ['another scheme', 'ftp://hooks.example.com/sui', 'The URL must use https.'],
    ['not a URL', 'hooks.example.com/sui', 'Not an absolute URL.'],
    ['credentials', 'https://user:pw@hooks.example.com/sui', 'The URL must not carry a user name or password.'],
    ['a fragment', 'https://hooks.example.com/sui#x', 'The URL must not carry a fragment.'],
    ['loopback', 'https://127.0.0.1/sui', 'The URL points to a private, loopback or reserved address.'],
    ['localhost', 'https://localhost:8443/sui', 'The URL points to a private, loopback or reserved address.'],
    ['a private network', 'https://10.1.2.3/sui', 'The URL points to a private, loopback or reserved address.'],
    ['link-local (cloud metadata)', 'https://169.254.169.254/latest', 'The URL points to a private, loopback or reserved address.'],
    ['IPv6 loopback', 'https://[::1]/sui', 'The URL points to a private, loopback or reserved address.'],
    ['IPv4-mapped IPv6 loopback', 'https://[::ffff:127.0.0.1]/sui', 'The URL points to a private, loopback or reserved address.'],
    ['the unspecified address', 'https://0.0.0.0/sui', 'The URL points to a private, loopback or reserved address.'],
    ['localhost with a trailing dot', 'https://localhost.:8443/sui', 'The URL points to a private, loopback or reserved address.'],
    ['a subdomain of localhost with a trailing dot', 'https://api.localhost./sui', 'The URL points to a private, loopback or reserved address.'],
    ['IPv4-compatible IPv6 loopback', 'https://[::127.0.0.1]/sui', 'The URL points to a private, loopback or reserved address.'],
    ['IPv4-compatible IPv6 metadata address', 'https://[::a9fe:a9fe]/latest', 'The URL points to a private, loopback or reserved address.'],
    ['IPv4-mapped IPv6 private address (hex words)', 'https://[::ffff:a00:1]/sui', 'The URL points to a private, loopback or reserved address.'],
    ['loopback as one decimal number', 'https://2130706433/sui', 'The URL points to a private, loopback or reserved address.'],
    ['loopback in octal', 'https://0177.0.0.1/sui', 'The URL points to a private, loopback or reserved address.'],
    ['loopback in hex, two parts', 'https://0x7f.1/sui', 'The URL points to a private, loopback or reserved address.'],
  ])('400 WEBHOOK_URL_NOT_ALLOWED for %s, on create and on PATCH', async (_case, url, message) => {
    const response = await call(t, 'POST', '/v1/webhooks', { key: t.adminKey, body: { ...VALID, url } });
    expect({ status: response.status, body: response.body }).toEqual({
      status: 400,
      body: { error: 'Webhook URL not allowed', code: 'WEBHOOK_URL_NOT_ALLOWED', message, requestId: expect.any(String) },
    });
    const created = await call(t, 'POST', '/v1/webhooks', { key: t.adminKey, body: VALID });
    const id = (created.body.data as { id: string }).id;
    const patched = await call(t, 'PATCH', `/v1/webhooks/${id}`, { key: t.adminKey, body: { url } });
    expect(patched.status).toBe(400);
    expect(patched.body.code).toBe('WEBHOOK_URL_NOT_ALLOWED');
    expect((await call(t, 'DELETE', `/v1/webhooks/${id}`, { key: t.adminKey })).status).toBe(200);
  });

  it('400 INVALID_BODY for a body that is not JSON, 415 for another media type', async () => {
    const bad = await t.app.inject({ method: 'POST', url: '/mainnet/v1/webhooks', headers: { 'x-api-key': t.adminKey, 'content-type': 'application/json' }, payload: '{"url":' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().code).toBe('INVALID_BODY');
    const text = await t.app.inject({ method: 'POST', url: '/mainnet/v1/webhooks', headers: { 'x-api-key': t.adminKey, 'content-type': 'text/plain' }, payload: 'x' });
    expect(text.statusCode).toBe(415);
    expect(text.json().code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('403 WEBHOOK_LIMIT_REACHED at the plan’s webhook count; a deleted webhook frees its slot', async () => {
    const limit = PLANS.team.webhooks;
    const ids: string[] = [];
    for (let i = 0; i < limit; i += 1) {
      const response = await call(t, 'POST', '/v1/webhooks', { key: t.adminKey, body: VALID });
      expect(response.status).toBe(201);
      ids.push((response.body.data as { id: string }).id);
    }
    const over = await call(t, 'POST', '/v1/webhooks', { key: t.adminKey, body: VALID });
    expect({ status: over.status, body: over.body }).toEqual({
      status: 403,
      body: { error: 'Webhook limit reached', code: 'WEBHOOK_LIMIT_REACHED', message: `The plan allows ${limit} webhooks.`, requestId: expect.any(String) },
    });
    expect((await call(t, 'DELETE', `/v1/webhooks/${ids[0]}`, { key: t.adminKey })).status).toBe(200);
    const again = await call(t, 'POST', '/v1/webhooks', { key: t.adminKey, body: VALID });
    expect(again.status).toBe(201);
    for (const id of [...ids.slice(1), (again.body.data as { id: string }).id]) await call(t, 'DELETE', `/v1/webhooks/${id}`, { key: t.adminKey });
  });

  it('404 WEBHOOK_NOT_FOUND for unknown ids on every per-webhook route', async () => {
    for (const [method, path, body] of [
      ['GET', '/v1/webhooks/wh_missing', undefined], ['PATCH', '/v1/webhooks/wh_missing', { enabled: false }],
      ['PATCH', '/v1/webhooks/wh_missing', { filters: { coinTypes: ['0x2::sui::SUI'] } }],
      ['DELETE', '/v1/webhooks/wh_missing', undefined], ['POST', '/v1/webhooks/wh_missing/rotate-secret', undefined],
      ['GET', '/v1/webhooks/wh_missing/deliveries', undefined],
    ] as const) {
      const response = await call(t, method, path, { key: t.adminKey, ...(body ? { body } : {}) });
      expect({ method, path, status: response.status, body: response.body }).toEqual({
        method, path, status: 404, body: { error: 'Webhook not found', code: 'WEBHOOK_NOT_FOUND', requestId: expect.any(String) },
      });
    }
  });

  it('PATCH with filters of another type or unknown fields is 400 VALIDATION_FAILED and changes nothing', async () => {
    const created = await call(t, 'POST', '/v1/webhooks', { key: t.adminKey, body: VALID });
    const id = (created.body.data as { id: string }).id;
    for (const body of [{ filters: { addresses: ['0x1'] } }, { type: 'address' }, { secret: 'x' }, { enabled: 'yes' }]) {
      const response = await call(t, 'PATCH', `/v1/webhooks/${id}`, { key: t.adminKey, body });
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('VALIDATION_FAILED');
    }
    expect((await call(t, 'GET', `/v1/webhooks/${id}`, { key: t.adminKey })).body.data).toMatchObject({ type: 'coin', filters: { coinTypes: [expect.stringContaining('::sui::SUI')] }, enabled: true });
    await call(t, 'DELETE', `/v1/webhooks/${id}`, { key: t.adminKey });
  });

  it('PATCH with an unknown filter key names it under body.filters (not at `body.filters.:`)', async () => {
    const created = await call(t, 'POST', '/v1/webhooks', { key: t.adminKey, body: VALID });
    const id = (created.body.data as { id: string }).id;
    const response = await call(t, 'PATCH', `/v1/webhooks/${id}`, { key: t.adminKey, body: { filters: { coinTypes: ['0x2::sui::SUI'], extra: 1 } } });
    const issue = 'body.filters: Unrecognized key: "extra"';
    expect({ status: response.status, body: response.body }).toEqual({
      status: 400, body: { error: 'Validation failed', code: 'VALIDATION_FAILED', message: issue, issues: [issue], requestId: expect.any(String) },
    });
    await call(t, 'DELETE', `/v1/webhooks/${id}`, { key: t.adminKey });
  });

  it('the delivery log: 400 VALIDATION_FAILED for a bad limit or status, 400 INVALID_CURSOR for a forged cursor', async () => {
    const created = await call(t, 'POST', '/v1/webhooks', { key: t.adminKey, body: VALID });
    const id = (created.body.data as { id: string }).id;
    for (const query of ['limit=0', 'limit=101', 'status=done']) {
      const response = await call(t, 'GET', `/v1/webhooks/${id}/deliveries?${query}`, { key: t.adminKey });
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('VALIDATION_FAILED');
    }
    const forged = await call(t, 'GET', `/v1/webhooks/${id}/deliveries?cursor=${Buffer.from('{"p":"1"}').toString('base64url')}.sig`, { key: t.adminKey });
    expect(forged.status).toBe(400);
    expect(forged.body.code).toBe('INVALID_CURSOR');
    await call(t, 'DELETE', `/v1/webhooks/${id}`, { key: t.adminKey });
  });

  it('403 INSUFFICIENT_SCOPE for a key without manage', async () => {
    const key = await createKeyVia(t, { scopes: ['data', 'streams'] });
    const response = await call(t, 'POST', '/v1/webhooks', { key: key.apiKey, body: VALID });
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('INSUFFICIENT_SCOPE');
  });

  it('another organization’s or network’s webhook is not found, and cannot be changed, rotated or deleted', async () => {
    const seeded = await createOrganization(t.db.database.db, t.clock, { name: 'Other', tier: 'team', projects: [{ name: 'Default', network: 'mainnet' }] });
    const otherKey = await createKey(t.db.database, t.clock, { kind: 'operator' }, {
      organizationId: seeded.organization.id, projectId: seeded.projects[0]!.id, name: 'o', scopes: ['manage'], expiresInDays: 30,
    });
    const created = await call(t, 'POST', '/v1/webhooks', { key: otherKey.apiKey, body: VALID });
    expect(created.status).toBe(201);
    const id = (created.body.data as { id: string }).id;
    expect((await call(t, 'GET', `/v1/webhooks/${id}`, { key: t.adminKey })).body.code).toBe('WEBHOOK_NOT_FOUND');
    expect((await call(t, 'PATCH', `/v1/webhooks/${id}`, { key: t.adminKey, body: { enabled: false } })).body.code).toBe('WEBHOOK_NOT_FOUND');
    expect((await call(t, 'POST', `/v1/webhooks/${id}/rotate-secret`, { key: t.adminKey })).body.code).toBe('WEBHOOK_NOT_FOUND');
    expect((await call(t, 'DELETE', `/v1/webhooks/${id}`, { key: t.adminKey })).body.code).toBe('WEBHOOK_NOT_FOUND');
    expect((await call(t, 'GET', `/v1/webhooks/${id}/deliveries`, { key: t.adminKey })).body.code).toBe('WEBHOOK_NOT_FOUND');
    expect((await call(t, 'GET', `/v1/webhooks/${id}`, { key: otherKey.apiKey })).body.data).toMatchObject({ id, enabled: true });

    const testnetKey = await createKeyVia(t, { projectId: t.projects.testnet, scopes: ['manage'] });
    const mine = await call(t, 'POST', '/v1/webhooks', { key: t.adminKey, body: VALID });
    const mineId = (mine.body.data as { id: string }).id;
    expect((await call(t, 'GET', `/v1/webhooks/${mineId}`, { key: testnetKey.apiKey, network: 'testnet' })).body.code).toBe('WEBHOOK_NOT_FOUND');
  });
});
