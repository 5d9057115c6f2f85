import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/support/test-app.js';
import { call, createKeyVia } from '../../../test/support/management-calls.js';

describe('DELETE /v1/keys/{id} (happy)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  it('200 {data:{id, enabled:false}}; the key is listed disabled and refused with 401 at once', async () => {
    const key = await createKeyVia(t, {});
    expect((await call(t, 'GET', '/v1/auth/me', { key: key.apiKey })).status).toBe(200);
    const response = await call(t, 'DELETE', `/v1/keys/${key.id}`, { key: t.adminKey });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: { id: key.id, enabled: false } });

    const list = await call(t, 'GET', '/v1/keys', { key: t.adminKey });
    expect((list.body.data as { id: string; enabled: boolean }[]).find((k) => k.id === key.id)?.enabled).toBe(false);
    const refused = await call(t, 'GET', '/v1/auth/me', { key: key.apiKey });
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBeUndefined();
  });

  it('is idempotent: disabling twice is 200 both times', async () => {
    const key = await createKeyVia(t, {});
    expect((await call(t, 'DELETE', `/v1/keys/${key.id}`, { key: t.adminKey })).status).toBe(200);
    const again = await call(t, 'DELETE', `/v1/keys/${key.id}`, { key: t.adminKey });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ data: { id: key.id, enabled: false } });
  });

  it('a key may disable itself; its next call fails with 401', async () => {
    const self = await createKeyVia(t, { scopes: ['data', 'manage'] });
    const response = await call(t, 'DELETE', `/v1/keys/${self.id}`, { key: self.apiKey });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: { id: self.id, enabled: false } });
    const next = await call(t, 'GET', '/v1/keys', { key: self.apiKey });
    expect(next.status).toBe(401);
  });
});
