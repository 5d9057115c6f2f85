import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/support/test-app.js';
import { planOf, type Tier } from '../../plans/index.js';
import { call, createKeyVia } from '../../../test/support/management-calls.js';

/** The projects a tier's plan allows, with no subscription in force. */
const projectLimit = (tier: string) => planOf({ tier, subscription: null }).projects;

describe('POST /v1/projects (errors)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ tier: 'team' });
  });
  afterAll(async () => t.close());

  const post = (body: unknown, key = t.adminKey) => call(t, 'POST', '/v1/projects', { key, body });
  const count = async (app: TestApp) =>
    (await app.db.database.db.selectFrom('projects').select('id').where('organization_id', '=', app.organizationId).execute()).length;

  it.each(['', '   ', '!!!', '日本語', 'Проект', '🚀'])('name %j yields an empty slug: 400 INVALID_PROJECT_NAME', async (name) => {
    const before = await count(t);
    const response = await post({ name, network: 'mainnet' });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'INVALID_PROJECT_NAME', error: 'Invalid project name' });
    expect(await count(t)).toBe(before);
  });

  it('a name whose slug exists is 409 PROJECT_SLUG_TAKEN, whatever the network', async () => {
    expect((await post({ name: 'Shop', network: 'mainnet' })).status).toBe(201);
    for (const name of ['shop', 'SHOP!', ' Shöp ']) {
      const response = await post({ name, network: 'testnet' });
      expect(response.status).toBe(409);
      expect(response.body).toMatchObject({ code: 'PROJECT_SLUG_TAKEN', error: 'Project slug taken' });
    }
    expect((await post({ name: 'Default', network: 'mainnet' })).body.code).toBe('PROJECT_SLUG_TAKEN');
  });

  it.each([
    [{ name: 'x', network: 'devnet' }],
    [{ name: 'x', network: 'MAINNET' }],
    [{ name: 'x' }],
    [{ network: 'mainnet' }],
    [{ name: 'x'.repeat(101), network: 'mainnet' }],
    [{ name: 5, network: 'mainnet' }],
    [{ name: 'nul\u0000name', network: 'mainnet' }],
    [{ name: 'lone \ud800 surrogate', network: 'mainnet' }],
    [{ name: 'bell \u0007', network: 'mainnet' }],
    [{ name: 'override \u202e', network: 'mainnet' }],
    // Unknown fields are refused, not ignored.
    [{ name: 'x', network: 'mainnet', slug: 'chosen' }],
  ])('%j is 400 VALIDATION_FAILED', async (body) => {
    const response = await post(body);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('VALIDATION_FAILED');
  });

  it('at the tier’s limit from plans.ts: 403 PROJECT_LIMIT_REACHED', async () => {
    const limit = projectLimit('team');
    for (let i = await count(t); i < limit; i++) {
      expect((await post({ name: `Fill ${i}`, network: 'mainnet' })).status).toBe(201);
    }
    expect(await count(t)).toBe(limit);
    const response = await post({ name: 'One too many', network: 'mainnet' });
    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({ code: 'PROJECT_LIMIT_REACHED', error: 'Project limit reached' });
    expect(await count(t)).toBe(limit);
  });

  it.each(['free', 'growth'] as Tier[])('the %s tier stops at its own limit', async (tier) => {
    const other = await createTestApp({ tier });
    try {
      const limit = projectLimit(tier);
      for (let i = await count(other); i < limit; i++) {
        expect((await call(other, 'POST', '/v1/projects', { key: other.adminKey, body: { name: `P ${i}`, network: 'testnet' } })).status).toBe(201);
      }
      const refused = await call(other, 'POST', '/v1/projects', { key: other.adminKey, body: { name: 'over', network: 'testnet' } });
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe('PROJECT_LIMIT_REACHED');
    } finally {
      await other.close();
    }
  });

  it('concurrent creations with one slug: one 201, the rest 409; at the limit: never over it', async () => {
    const other = await createTestApp({ tier: 'growth' });
    try {
      const same = await Promise.all(
        Array.from({ length: 6 }, () => call(other, 'POST', '/v1/projects', { key: other.adminKey, body: { name: 'Same', network: 'mainnet' } })),
      );
      expect(same.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
      const limit = projectLimit('growth');
      const many = await Promise.all(
        Array.from({ length: limit }, (_, i) => call(other, 'POST', '/v1/projects', { key: other.adminKey, body: { name: `Many ${i}`, network: 'testnet' } })),
      );
      expect(many.filter((r) => r.status === 201)).toHaveLength(limit - 3);
      expect(many.filter((r) => r.status === 403).every((r) => r.body.code === 'PROJECT_LIMIT_REACHED')).toBe(true);
      expect(await count(other)).toBe(limit);
    } finally {
      await other.close();
    }
  });

  it('a key without manage: 403 INSUFFICIENT_SCOPE on both list and create', async () => {
    const reader = await createKeyVia(t, { scopes: ['data', 'streams'] });
    expect((await call(t, 'GET', '/v1/projects', { key: reader.apiKey })).body.code).toBe('INSUFFICIENT_SCOPE');
    expect((await post({ name: 'nope', network: 'mainnet' }, reader.apiKey)).body.code).toBe('INSUFFICIENT_SCOPE');
  });
});
