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

  // Spec, /auth/me: tier is one of free, team, (growth,) professional, business, enterprise and
  // subscription.status one of active, canceled, past_due, incomplete, trialing.
  describe('a free organization paying on chain: the tier in force and the spec’s status words', () => {
    let free: TestApp;
    beforeAll(async () => {
      free = await createTestApp({ tier: 'free' });
    });
    afterAll(async () => free.close());

    const subscribe = async (plan: string | null, status: string | null) => {
      await free.db.database.db.updateTable('organizations').set({ subscription_plan: plan, subscription_status: status }).where('id', '=', free.organizationId).execute();
      free.clock.advance(free.config.keyCacheTtlMs + 1);
    };
    const me = async () => {
      const response = await call(free, 'GET', '/v1/auth/me', { key: free.adminKey });
      expect(response.status).toBe(200);
      const { tier, subscription } = response.body.data as { tier: string; subscription: unknown };
      return { tier, subscription };
    };

    it.each([
      ['awaiting_first_charge', 'incomplete'],
      ['active', 'active'],
      ['past_due', 'past_due'],
      ['cancel_pending', 'active'],
    ])('a business plan %s: tier business, status %s', async (state, status) => {
      await subscribe('business', state);
      expect(await me()).toEqual({ tier: 'business', subscription: { plan: 'business', status } });
    });

    it('an ended plan: back on the free tier, status canceled', async () => {
      await subscribe(null, 'ended');
      expect(await me()).toEqual({ tier: 'free', subscription: { plan: null, status: 'canceled' } });
    });

    it('a status already in the spec’s words (a card subscription’s) is shown as stored', async () => {
      await subscribe('growth', 'trialing');
      expect(await me()).toEqual({ tier: 'growth', subscription: { plan: 'growth', status: 'trialing' } });
    });
  });
});
