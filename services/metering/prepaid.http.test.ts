import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream } from '../../test/support/fake-upstream.js';
import { createTestApp, type TestApp } from '../../test/support/test-app.js';
import { createKey, createOrganization, grantPrepaidCredit } from '../identity/index.js';
import { defaultUpstreamPolicy, SuiUpstream } from '../upstream/index.js';

// The upstream is not under test here: generous timeouts, so a loaded machine cannot fail a request.
const policy = {
  ...defaultUpstreamPolicy, deadlineMs: 10_000, attemptTimeoutMs: 5_000, retries: 0, retryBaseDelayMs: 10, retryMaxDelayMs: 20,
  breakerFailureThreshold: 1_000, breakerCooldownMs: 60_000, healthTimeoutMs: 3_000,
};
const OBJECT = `/mainnet/v1/objects/0x${'5'.repeat(64)}`;

describe('prepaid credit through HTTP: a wallet organization spends its balance', () => {
  let fake: Awaited<ReturnType<typeof startFakeUpstream>>;
  let upstream: SuiUpstream;
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    fake = await startFakeUpstream();
    upstream = new SuiUpstream({ network: 'mainnet', endpoints: { grpcUrl: fake.grpcUrl, graphqlUrl: fake.graphqlUrl }, policy });
    t = await createTestApp({ extra: { upstreams: new Map([['mainnet', upstream]]) } });
    const { organization, projects } = await createOrganization(t.db.database.db, t.clock, {
      name: 'Wallet',
      tier: 'wallet',
      walletAddress: `0x${'a'.repeat(64)}`,
      projects: [{ name: 'Default', network: 'mainnet' }],
    });
    // $0.001 = 1,000 micro-USD = 100 credits.
    await grantPrepaidCredit(t.db.database.db, t.clock, organization.id, 1_000n, 'test');
    key = (await createKey(t.db.database, t.clock, { kind: 'operator' }, {
      organizationId: organization.id,
      projectId: projects[0]!.id,
      name: 'k',
      scopes: ['data', 'manage'],
      expiresInDays: 30,
    })).apiKey;
  });
  afterAll(async () => {
    await t.close();
    await upstream.close();
    await fake.stop();
  });

  const get = (url: string) => t.app.inject({ url, headers: { 'x-api-key': key } });
  /** Data requests inside the wallet plan's 50/s (the test clock advances 25 ms per request). */
  async function dataRequests(count: number): Promise<void> {
    for (let i = 0; i < count; i += 1) {
      t.clock.advance(25);
      const response = await get(OBJECT);
      expect(response.statusCode, response.body).toBe(200);
    }
  }
  /** GET /v1/usage flushes this process's usage first; then the account shows the balance. */
  async function balance(): Promise<{ credits: string; usd: string }> {
    expect((await get('/mainnet/v1/usage')).statusCode).toBe(200);
    const response = await get('/mainnet/v1/account');
    expect(response.statusCode, response.body).toBe(200);
    return (response.json() as { data: { balance: { credits: string; usd: string } } }).data.balance;
  }

  it('100 one-credit requests spend the 100 prepaid credits; the next is refused with CU_QUOTA_EXCEEDED', async () => {
    expect(await balance()).toEqual({ credits: '100', usd: '0.001' });
    await dataRequests(40);
    expect(await balance()).toEqual({ credits: '60', usd: '0.0006' });
    await dataRequests(60);
    expect(await balance()).toEqual({ credits: '0', usd: '0.00' });
    t.clock.advance(25);
    const refused = await get(OBJECT);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ code: 'CU_QUOTA_EXCEEDED' });
    expect(refused.headers['x-svc-credit-remaining']).toBe('0');
    // A new month gives a wallet organization nothing: its plan has no monthly credits.
    t.clock.set(Date.UTC(2026, 11, 1, 0, 0, 1));
    const nextMonth = await get(OBJECT);
    expect(nextMonth.statusCode).toBe(429);
    expect(nextMonth.json()).toMatchObject({ code: 'CU_QUOTA_EXCEEDED' });
    expect(await balance()).toEqual({ credits: '0', usd: '0.00' });
  });
});
