import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/support/test-app.js';
import { createKey, createOrganization } from '../../identity/index.js';
import { call, createKeyVia } from '../../../test/support/management-calls.js';

describe('GET /v1/keys (security)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  it("lists every key of the caller's organization, enabled or not, and none of another's", async () => {
    const other = await createOrganization(t.db.database.db, t.clock, { name: 'Other', tier: 'team' });
    const foreign = await createKey(t.db.database, t.clock, { kind: 'operator' }, { organizationId: other.organization.id, projectId: other.projects[0]!.id, name: 'theirs' });
    const testnet = await createKeyVia(t, { projectId: t.projects.testnet, name: 'testnet key' });
    const disabled = await createKeyVia(t, { name: 'gone' });
    await call(t, 'DELETE', `/v1/keys/${disabled.id}`, { key: t.adminKey });

    const response = await call(t, 'GET', '/v1/keys', { key: t.adminKey });
    expect(response.status).toBe(200);
    const items = response.body.data as { id: string; enabled: boolean; projectId: string }[];
    expect(items.map((k) => k.id).sort()).toEqual([t.adminKeyId, testnet.id, disabled.id].sort());
    expect(items.find((k) => k.id === disabled.id)?.enabled).toBe(false);
    expect(items.find((k) => k.id === testnet.id)?.projectId).toBe(t.projects.testnet);
    expect(JSON.stringify(items)).not.toContain(foreign.id);
    for (const item of items) expect(Object.keys(item)).not.toContain('apiKey');
  });

  it('concurrent creations never pass 50 enabled keys (the organization row is locked)', async () => {
    const enabled = async () =>
      (await t.db.database.db.selectFrom('api_keys').select('id').where('organization_id', '=', t.organizationId).where('enabled', '=', true).execute()).length;
    for (let i = await enabled(); i < 47; i++) {
      await createKey(t.db.database, t.clock, { kind: 'operator' }, { organizationId: t.organizationId, projectId: t.projects.mainnet, name: `fill ${i}` });
    }
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) => call(t, 'POST', '/v1/keys', { key: t.adminKey, body: { name: `race ${i}`, projectId: t.projects.mainnet } })),
    );
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(3);
    expect(statuses.filter((s) => s === 403)).toHaveLength(7);
    expect(responses.filter((r) => r.status === 403).every((r) => r.body.code === 'KEY_LIMIT_REACHED')).toBe(true);
    expect(await enabled()).toBe(50);
  });
});
