import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/support/test-app.js';
import { call, createKeyVia } from '../../../test/support/management-calls.js';

describe('POST /v1/projects and GET /v1/projects (happy)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ tier: 'enterprise' });
  });
  afterAll(async () => t.close());

  it('lists the organization’s projects with the spec’s fields', async () => {
    const response = await call(t, 'GET', '/v1/projects', { key: t.adminKey });
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual([
      { id: t.projects.mainnet, name: 'Default', slug: 'default', network: 'mainnet', createdAt: new Date(t.clock.now()).toISOString() },
      { id: t.projects.testnet, name: 'Staging', slug: 'staging', network: 'testnet', createdAt: new Date(t.clock.now()).toISOString() },
    ]);
  });

  it('201 with {id, name, slug, network, createdAt}; the project is listed and takes keys', async () => {
    const response = await call(t, 'POST', '/v1/projects', { key: t.adminKey, body: { name: 'My App', network: 'testnet' } });
    expect(response.status).toBe(201);
    const project = response.body.data as Record<string, string>;
    expect(Object.keys(project).sort()).toEqual(['createdAt', 'id', 'name', 'network', 'slug']);
    expect(project).toMatchObject({ name: 'My App', slug: 'my-app', network: 'testnet', createdAt: new Date(t.clock.now()).toISOString() });
    const list = await call(t, 'GET', '/v1/projects', { key: t.adminKey });
    expect((list.body.data as { id: string }[]).map((p) => p.id)).toContain(project['id']);
    const key = await createKeyVia(t, { projectId: project['id'] });
    expect((await call(t, 'GET', '/v1/auth/me', { key: key.apiKey, network: 'testnet' })).status).toBe(200);
    expect((await call(t, 'GET', '/v1/auth/me', { key: key.apiKey })).body.code).toBe('NETWORK_MISMATCH');
  });

  it.each([
    ['Café Déjà Vu', 'cafe-deja-vu'],
    ['  Ünïcödé   Prøject!! ', 'unicode-pr-ject'],
    ['ＡＢＣ　１２３', 'abc-123'],
    ['🚀 Rocket 🚀', 'rocket'],
    ['a--b__c', 'a-b-c'],
    ['x'.repeat(100), 'x'.repeat(48)],
  ])('the slug of %j is %j', async (name, slug) => {
    const response = await call(t, 'POST', '/v1/projects', { key: t.adminKey, body: { name, network: 'mainnet' } });
    expect(response.status).toBe(201);
    expect(response.body.data).toMatchObject({ slug, name: name.trim() });
  });
});
