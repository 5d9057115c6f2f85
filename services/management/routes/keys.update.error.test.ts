import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/support/test-app.js';
import { createKey, createOrganization } from '../../identity/index.js';
import { call, createKeyVia } from '../../../test/support/management-calls.js';

describe('PATCH /v1/keys/{id} (errors)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  const patch = (id: string, body: unknown, key = t.adminKey) => call(t, 'PATCH', `/v1/keys/${id}`, { key, body });

  async function scopesOf(id: string): Promise<string[]> {
    const row = await t.db.database.db.selectFrom('api_keys').select('scopes').where('id', '=', id).executeTakeFirstOrThrow();
    return row.scopes;
  }

  it('scopes beyond the caller’s are 403 SCOPE_ESCALATION and change nothing', async () => {
    const manager = await createKeyVia(t, { scopes: ['data', 'manage'] });
    const target = await createKeyVia(t, {});
    const response = await patch(target.id, { scopes: ['data', 'zkLogin'] }, manager.apiKey);
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('SCOPE_ESCALATION');
    expect(await scopesOf(target.id)).toEqual(['data']);
    // A manage key cannot lift itself either.
    const self = await patch(manager.id, { scopes: ['data', 'manage', 'streams'] }, manager.apiKey);
    expect(self.body.code).toBe('SCOPE_ESCALATION');
    expect(await scopesOf(manager.id)).toEqual(['data', 'manage']);
  });

  it.each([[['root']], [[]]])('scopes %j are 400 INVALID_SCOPES', async (scopes) => {
    const target = await createKeyVia(t, {});
    const response = await patch(target.id, { scopes });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('INVALID_SCOPES');
  });

  it.each([['http://'], ['*.'], ['*'], ['example.com/path'], ['example.com:99999'], ['exa mple.com'], ['https://*.x.io:port']])(
    'allowed origin %j is 400 VALIDATION_FAILED',
    async (origin) => {
      const target = await createKeyVia(t, {});
      const response = await patch(target.id, { allowedOrigins: [origin] });
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('VALIDATION_FAILED');
    },
  );

  it.each([[{ perKeyRps: 0 }], [{ perKeyRps: 1.5 }], [{ perIpRps: -1 }], [{ perKeyRps: '5' }]])('rateLimit %j is 400 VALIDATION_FAILED', async (rateLimit) => {
    const target = await createKeyVia(t, {});
    const response = await patch(target.id, { rateLimit });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('VALIDATION_FAILED');
  });

  it('unknown and foreign keys are 404 KEY_NOT_FOUND', async () => {
    expect((await patch('key_nope', { name: 'x' })).body.code).toBe('KEY_NOT_FOUND');
    const other = await createOrganization(t.db.database.db, t.clock, { name: 'Other', tier: 'team' });
    const foreign = await createKey(t.db.database, t.clock, { kind: 'operator' }, { organizationId: other.organization.id, projectId: other.projects[0]!.id, name: 'theirs' });
    const response = await patch(foreign.id, { name: 'mine now' });
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('KEY_NOT_FOUND');
    const row = await t.db.database.db.selectFrom('api_keys').select('name').where('id', '=', foreign.id).executeTakeFirstOrThrow();
    expect(row.name).toBe('theirs');
  });
});
