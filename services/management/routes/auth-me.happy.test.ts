import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/support/test-app.js';
import { call, createKeyVia } from '../../../test/support/management-calls.js';

describe('GET /v1/auth/me', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  it('describes the calling key, its organization, project and network', async () => {
    const response = await call(t, 'GET', '/v1/auth/me', { key: t.adminKey });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      data: {
        apiKey: { id: t.adminKeyId, name: 'admin' },
        organization: { id: t.organizationId, name: 'Acme' },
        project: { id: t.projects.mainnet, name: 'Default' },
        network: 'mainnet',
        tier: 'team',
        subscription: null,
      },
    });
  });

  it('any valid key of the network may call it, whatever its scopes', async () => {
    for (const scopes of [['data'], ['streams'], ['zkLogin']]) {
      const key = await createKeyVia(t, { scopes, projectId: t.projects.testnet });
      const response = await call(t, 'GET', '/v1/auth/me', { key: key.apiKey, network: 'testnet' });
      expect(response.status).toBe(200);
      expect(response.body.data).toMatchObject({ apiKey: { id: key.id }, network: 'testnet', project: { id: t.projects.testnet, name: 'Staging' } });
    }
  });
});
