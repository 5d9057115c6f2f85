import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/support/test-app.js';
import { createKey, createOrganization } from '../../identity/index.js';
import { call, createKeyVia } from '../../../test/support/management-calls.js';

describe('DELETE /v1/keys/{id} (errors)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  it('an unknown id is 404 KEY_NOT_FOUND', async () => {
    const response = await call(t, 'DELETE', '/v1/keys/key_doesnotexist', { key: t.adminKey });
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ code: 'KEY_NOT_FOUND', error: 'Key not found' });
  });

  it("another organization's key is 404 KEY_NOT_FOUND and stays enabled", async () => {
    const other = await createOrganization(t.db.database.db, t.clock, { name: 'Other', tier: 'team' });
    const foreign = await createKey(t.db.database, t.clock, { kind: 'operator' }, {
      organizationId: other.organization.id,
      projectId: other.projects[0]!.id,
      name: 'theirs',
    });
    const response = await call(t, 'DELETE', `/v1/keys/${foreign.id}`, { key: t.adminKey });
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('KEY_NOT_FOUND');
    expect((await call(t, 'GET', '/v1/auth/me', { key: foreign.apiKey })).status).toBe(200);
  });

  it('a key without manage gets 403 INSUFFICIENT_SCOPE and disables nothing', async () => {
    const reader = await createKeyVia(t, {});
    const response = await call(t, 'DELETE', `/v1/keys/${t.adminKeyId}`, { key: reader.apiKey });
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('INSUFFICIENT_SCOPE');
    expect((await call(t, 'GET', '/v1/keys', { key: t.adminKey })).status).toBe(200);
  });

  it.each(['k'.repeat(65), '%00', 'key_%00x'])('id %j is 400 VALIDATION_FAILED, not 500', async (id) => {
    const response = await call(t, 'DELETE', `/v1/keys/${id}`, { key: t.adminKey });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('VALIDATION_FAILED');
    const patched = await call(t, 'PATCH', `/v1/keys/${id}`, { key: t.adminKey, body: { name: 'x' } });
    expect(patched.status).toBe(400);
  });
});
