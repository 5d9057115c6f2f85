import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/support/test-app.js';
import { call, createKeyVia } from '../../../test/support/management-calls.js';
import { createLogger } from '../../core/index.js';
import { buildGatewayApp } from '../../cli/gateway-app.js';
import { Authenticator } from '../../identity/index.js';
import { openPipeline } from '../../pipeline/index.js';

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

  it('with the default cache TTL, the process that served the DELETE refuses the key at once, notification or not', async () => {
    // An authenticator that never hears the channel: only the local invalidation can help.
    const deaf = new Authenticator({ database: t.db.database, clock: t.clock, ttlMs: t.config.keyCacheTtlMs });
    const runtime = { config: t.config, database: t.db.database, clock: t.clock, logger: createLogger('silent') };
    const app = await buildGatewayApp({ ...runtime, pipeline: await openPipeline(runtime, { authenticator: deaf }) });
    try {
      const onApp = (method: 'GET' | 'DELETE', url: string, key: string) =>
        app.inject({ method, url: `/mainnet${url}`, headers: { 'x-api-key': key } });
      expect(t.config.keyCacheTtlMs).toBeGreaterThan(0);
      const key = await createKeyVia(t, {});
      expect((await onApp('GET', '/v1/auth/me', key.apiKey)).statusCode).toBe(200);
      expect((await onApp('DELETE', `/v1/keys/${key.id}`, t.adminKey)).statusCode).toBe(200);
      const refused = await onApp('GET', '/v1/auth/me', key.apiKey);
      expect(refused.statusCode).toBe(401);
      expect(refused.json()).toMatchObject({ error: expect.any(String) });
    } finally {
      await app.close();
    }
  });
});
