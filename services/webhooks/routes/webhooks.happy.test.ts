import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/support/test-app.js';
import { call } from '../../../test/support/management-calls.js';
import { webhooksDb } from '../definitions/store.js';

const SUI = '0x0000000000000000000000000000000000000000000000000000000000000002::sui::SUI';
const PKG = `0x${'ab'.repeat(32)}`;

describe('/v1/webhooks (happy)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ tier: 'enterprise' });
  });
  afterAll(async () => t.close());

  it('201 {data: {id, url, type, filters, secret}} with a whsec_ secret shown once; lists and reads never show it', async () => {
    const created = await call(t, 'POST', '/v1/webhooks', { key: t.adminKey, body: { url: 'https://hooks.example.com/sui', type: 'coin', filters: { coinTypes: ['0x2::sui::SUI'] } } });
    expect(created.status).toBe(201);
    const data = created.body.data as Record<string, string>;
    expect(Object.keys(data).sort()).toEqual(['filters', 'fromCheckpoint', 'id', 'secret', 'type', 'url']);
    expect(data['fromCheckpoint']).toBeNull();
    expect(data).toMatchObject({ url: 'https://hooks.example.com/sui', type: 'coin', filters: { coinTypes: [SUI] } });
    expect(data['id']).toMatch(/^wh_[1-9A-HJ-NP-Za-km-z]+$/);
    expect(data['secret']).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(data['secret']!.slice(6), 'base64')).toHaveLength(24);

    const one = await call(t, 'GET', `/v1/webhooks/${data['id']}`, { key: t.adminKey });
    expect(one.status).toBe(200);
    expect(one.body.data).toEqual({
      id: data['id'], url: 'https://hooks.example.com/sui', type: 'coin', filters: { coinTypes: [SUI] },
      enabled: true, paused: false, disabledReason: null, createdAt: new Date(t.clock.now()).toISOString(),
    });
    const list = await call(t, 'GET', '/v1/webhooks', { key: t.adminKey });
    expect(list.body.data).toEqual([one.body.data]);
    expect(JSON.stringify(list.body)).not.toContain(data['secret']!.slice(6));
  });

  it('the secret is sealed at rest: the row holds neither the secret nor its base64 key', async () => {
    const created = await call(t, 'POST', '/v1/webhooks', { key: t.adminKey, body: { url: 'https://hooks.example.com/a', type: 'address', filters: { addresses: ['0x5'] } } });
    const { id, secret } = created.body.data as { id: string; secret: string };
    const row = await webhooksDb(t.db.database).selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.secret_sealed.startsWith('v1.')).toBe(true);
    expect(JSON.stringify(row)).not.toContain(secret.slice(6));
  });

  it('PATCH changes url, filters of the same type and enabled; rotate-secret returns a new secret and the 24 h overlap', async () => {
    const created = await call(t, 'POST', '/v1/webhooks', { key: t.adminKey, body: { url: 'https://hooks.example.com/e', type: 'event', filters: { eventTypes: [`${PKG}::pool::Swap`] } } });
    const { id, secret } = created.body.data as { id: string; secret: string };
    const patched = await call(t, 'PATCH', `/v1/webhooks/${id}`, { key: t.adminKey, body: { url: 'https://hooks.example.com/e2', filters: { eventTypes: [`${PKG}::pool::Mint`], fields: { pool: '0x1' } }, enabled: false } });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ id, url: 'https://hooks.example.com/e2', type: 'event', filters: { eventTypes: [`${PKG}::pool::Mint`], fields: { pool: '0x1' } }, enabled: false, disabledReason: 'manual' });
    const enabled = await call(t, 'PATCH', `/v1/webhooks/${id}`, { key: t.adminKey, body: { enabled: true } });
    expect(enabled.body.data).toMatchObject({ enabled: true, disabledReason: null });

    const rotated = await call(t, 'POST', `/v1/webhooks/${id}/rotate-secret`, { key: t.adminKey });
    expect(rotated.status).toBe(200);
    const data = rotated.body.data as { id: string; secret: string; previousSecretExpiresAt: string };
    expect(data.id).toBe(id);
    expect(data.secret).toMatch(/^whsec_/);
    expect(data.secret).not.toBe(secret);
    expect(data.previousSecretExpiresAt).toBe(new Date(t.clock.now() + 24 * 3_600_000).toISOString());
  });

  it('DELETE removes it from reads and lists', async () => {
    const created = await call(t, 'POST', '/v1/webhooks', { key: t.adminKey, body: { url: 'https://hooks.example.com/o', type: 'object', filters: { objectIds: ['0x6'] } } });
    const { id } = created.body.data as { id: string };
    const deleted = await call(t, 'DELETE', `/v1/webhooks/${id}`, { key: t.adminKey });
    expect(deleted.status).toBe(200);
    expect(deleted.body.data).toEqual({ id, deleted: true });
    expect((await call(t, 'GET', `/v1/webhooks/${id}`, { key: t.adminKey })).body.code).toBe('WEBHOOK_NOT_FOUND');
    const list = await call(t, 'GET', '/v1/webhooks', { key: t.adminKey });
    expect((list.body.data as { id: string }[]).map((w) => w.id)).not.toContain(id);
  });

  it('the delivery log of a new webhook is an empty first page', async () => {
    const created = await call(t, 'POST', '/v1/webhooks', { key: t.adminKey, body: { url: 'https://hooks.example.com/l', type: 'coin', filters: { coinTypes: ['0x2::sui::SUI'] } } });
    const { id } = created.body.data as { id: string };
    const log = await call(t, 'GET', `/v1/webhooks/${id}/deliveries`, { key: t.adminKey });
    expect(log.status).toBe(200);
    expect(log.body).toEqual({ data: [], pagination: { limit: 50, hasNext: false } });
  });
});
