import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/support/test-app.js';
import { call, createKeyVia } from '../../../test/support/management-calls.js';

describe('GET /v1/account', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ tier: 'growth' });
  });
  afterAll(async () => t.close());

  it('describes organization, tier, subscription and the calling key; no balance for a non-wallet organization', async () => {
    const response = await call(t, 'GET', '/v1/account', { key: t.adminKey });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      data: {
        organization: { id: t.organizationId, name: 'Acme', walletAddress: null },
        tier: 'growth',
        subscription: { plan: null, status: null, periodEnd: null },
        key: {
          id: t.adminKeyId,
          name: 'admin',
          scopes: ['data', 'streams', 'manage', 'zkLogin'],
          projectId: t.projects.mainnet,
          expiresAt: new Date(t.clock.now() + 365 * 86_400_000).toISOString(),
        },
      },
    });
  });

  it('the key block describes whichever key calls', async () => {
    const key = await createKeyVia(t, { name: 'ops', scopes: ['manage'], expiresInDays: 7 });
    const response = await call(t, 'GET', '/v1/account', { key: key.apiKey });
    expect((response.body.data as { key: unknown }).key).toEqual({ id: key.id, name: 'ops', scopes: ['manage'], projectId: t.projects.mainnet, expiresAt: key.expiresAt });
  });

  it('shows a subscription written to the organization', async () => {
    await t.db.database.db
      .updateTable('organizations')
      .set({ subscription_plan: 'growth', subscription_status: 'active', subscription_period_end: new Date('2026-12-22T12:00:00Z') })
      .where('id', '=', t.organizationId)
      .execute();
    const response = await call(t, 'GET', '/v1/account', { key: t.adminKey });
    expect((response.body.data as { subscription: unknown }).subscription).toEqual({ plan: 'growth', status: 'active', periodEnd: '2026-12-22T12:00:00.000Z' });
  });

  it.each([
    ['awaiting_first_charge', 'business', 'incomplete'],
    ['active', 'business', 'active'],
    ['past_due', 'business', 'past_due'],
    ['cancel_pending', 'business', 'active'],
    ['ended', 'growth', 'canceled'],
  ])('an on-chain business plan %s: tier %s (the tier in force), status %s', async (state, tier, status) => {
    await t.db.database.db
      .updateTable('organizations')
      .set({ subscription_plan: state === 'ended' ? null : 'business', subscription_status: state, subscription_period_end: new Date('2026-12-22T12:00:00Z') })
      .where('id', '=', t.organizationId)
      .execute();
    const response = await call(t, 'GET', '/v1/account', { key: t.adminKey });
    expect(response.body.data).toMatchObject({
      tier,
      subscription: { plan: state === 'ended' ? null : 'business', status, periodEnd: '2026-12-22T12:00:00.000Z' },
    });
  });

  it('needs manage: 403 INSUFFICIENT_SCOPE for a data key', async () => {
    const reader = await createKeyVia(t, {});
    const response = await call(t, 'GET', '/v1/account', { key: reader.apiKey });
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('INSUFFICIENT_SCOPE');
  });
});
