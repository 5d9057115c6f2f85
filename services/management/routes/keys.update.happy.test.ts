import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/support/test-app.js';
import { call, createKeyVia } from '../../../test/support/management-calls.js';

describe('PATCH /v1/keys/{id} (happy)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  const patch = (id: string, body: unknown, key = t.adminKey) => call(t, 'PATCH', `/v1/keys/${id}`, { key, body });

  it('renames and returns the list item', async () => {
    const key = await createKeyVia(t, { name: 'before' });
    const response = await patch(key.id, { name: '  after  ' });
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ id: key.id, name: 'after', scopes: ['data'], enabled: true, expiresAt: key.expiresAt });
    expect(JSON.stringify(response.body)).not.toContain(key.apiKey);
  });

  it('changes scopes within the caller’s, and the key’s access follows', async () => {
    const key = await createKeyVia(t, {});
    expect((await call(t, 'GET', '/v1/keys', { key: key.apiKey })).status).toBe(403);
    const response = await patch(key.id, { scopes: ['data', 'manage'] });
    expect(response.status).toBe(200);
    expect((response.body.data as { scopes: string[] }).scopes).toEqual(['data', 'manage']);
    expect((await call(t, 'GET', '/v1/keys', { key: key.apiKey })).status).toBe(200);
    await patch(key.id, { scopes: ['data'] });
    expect((await call(t, 'GET', '/v1/keys', { key: key.apiKey })).body.code).toBe('INSUFFICIENT_SCOPE');
  });

  it('stores allowed origins lower-cased and de-duplicated; [] lifts the restriction', async () => {
    const key = await createKeyVia(t, {});
    const response = await patch(key.id, { allowedOrigins: ['Example.COM', 'example.com', '*.app.io', 'https://x.io:8443'] });
    expect(response.status).toBe(200);
    expect((response.body.data as { allowedOrigins: string[] }).allowedOrigins).toEqual(['example.com', '*.app.io', 'https://x.io:8443']);
    expect((await call(t, 'GET', '/v1/auth/me', { key: key.apiKey })).body.code).toBe('ORIGIN_NOT_ALLOWED');
    expect((await patch(key.id, { allowedOrigins: [] })).status).toBe(200);
    expect((await call(t, 'GET', '/v1/auth/me', { key: key.apiKey })).status).toBe(200);
  });

  it('sets, merges and clears rate limits', async () => {
    const key = await createKeyVia(t, {});
    const set = await patch(key.id, { rateLimit: { perKeyRps: 10 } });
    expect((set.body.data as { rateLimit: unknown }).rateLimit).toEqual({ perKeyRps: 10, perIpRps: null });
    const merged = await patch(key.id, { rateLimit: { perIpRps: 2 } });
    expect((merged.body.data as { rateLimit: unknown }).rateLimit).toEqual({ perKeyRps: 10, perIpRps: 2 });
    const one = await patch(key.id, { rateLimit: { perKeyRps: null } });
    expect((one.body.data as { rateLimit: unknown }).rateLimit).toEqual({ perKeyRps: null, perIpRps: 2 });
    const cleared = await patch(key.id, { rateLimit: null });
    expect((cleared.body.data as { rateLimit: unknown }).rateLimit).toEqual({ perKeyRps: null, perIpRps: null });
  });

  it('an empty body changes nothing', async () => {
    const key = await createKeyVia(t, { name: 'same' });
    const response = await patch(key.id, {});
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ id: key.id, name: 'same', scopes: ['data'] });
  });
});
