import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/support/test-app.js';
import { call } from '../../../test/support/management-calls.js';
import { grantPrepaidCredit } from '../../identity/index.js';

/**
 * Spec, "Management account": `balance {credits, usd}` is present for wallet organizations (tier
 * `wallet`, pay per request). One made by `suigw admin create-org --tier wallet` has no wallet
 * address, and its balance was missing: the holder saw `tier: wallet`, a 429 CU_QUOTA_EXCEEDED on
 * data calls, and no balance to explain it.
 */
describe('GET /v1/account of a wallet organization without a wallet address', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ tier: 'wallet' });
  });
  afterAll(async () => t.close());

  it('shows the prepaid balance, zero before any grant', async () => {
    const response = await call(t, 'GET', '/v1/account', { key: t.adminKey });
    expect(response.status).toBe(200);
    const data = response.body.data as { organization: unknown; tier: string; balance?: unknown };
    expect(data.organization).toEqual({ id: t.organizationId, name: 'Acme', walletAddress: null });
    expect(data.tier).toBe('wallet');
    expect(data.balance).toEqual({ credits: '0', usd: '0.00' });
  });

  it('shows a grant in credits and USD', async () => {
    await grantPrepaidCredit(t.db.database.db, t.clock, t.organizationId, 7_250_000n);
    const response = await call(t, 'GET', '/v1/account', { key: t.adminKey });
    expect((response.body.data as { balance?: unknown }).balance).toEqual({ credits: '725000', usd: '7.25' });
  });
});
