import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream } from '../../test/support/fake-upstream.js';
import { ALL_SCOPES, createTestApp, type TestApp } from '../../test/support/test-app.js';
import { createKey, createOrganization, type Scope } from '../identity/index.js';
import { defaultUpstreamPolicy, SuiUpstream } from '../upstream/index.js';

const OBJECT = `/mainnet/v1/objects/0x${'5'.repeat(64)}`;
const JSONRPC_CALL = { jsonrpc: '2.0', id: 1, method: 'sui_getChainIdentifier', params: [] };

interface Organization {
  /** A key of every scope on mainnet, uncapped: the requests that are admitted. */
  good: string;
  /** The key each case refuses. */
  refused: string;
}

/**
 * Spec, Limits: the organization-wide rate has "response headers on every response". A 403 of
 * the authenticate stage for a key that was identified (network, scope, origin) names the
 * organization, so it carries X-RateLimit-Limit, -Remaining and -Reset, read without consuming;
 * it is not charged (docs/metering.md, Costs). A 401 has no organization and carries none.
 */
describe('403s of an identified key carry its organization\'s X-RateLimit-* headers', () => {
  let fake: Awaited<ReturnType<typeof startFakeUpstream>>;
  let upstream: SuiUpstream;
  let t: TestApp;

  beforeAll(async () => {
    fake = await startFakeUpstream();
    upstream = new SuiUpstream({ network: 'mainnet', endpoints: { grpcUrl: fake.grpcUrl, graphqlUrl: fake.graphqlUrl }, policy: { ...defaultUpstreamPolicy, retries: 0 } });
    t = await createTestApp({ extra: { upstreams: new Map([['mainnet', upstream]]) } });
  });
  afterAll(async () => {
    await t.close();
    await upstream.close();
    await fake.stop();
  });

  /** A team organization (50 requests per second, 25,000,000 credits) of its own, so each case starts whole. */
  async function organization(refused: { network: 'mainnet' | 'testnet'; scopes: Scope[]; allowedOrigins?: string[] }): Promise<Organization> {
    const { organization: created, projects } = await createOrganization(t.db.database.db, t.clock, {
      name: 'Refused', tier: 'team', projects: [{ name: 'Main', network: 'mainnet' }, { name: 'Test', network: 'testnet' }],
    });
    const projectOf = { mainnet: projects[0]!.id, testnet: projects[1]!.id };
    const key = (projectId: string, scopes: Scope[], allowedOrigins?: string[]) => createKey(t.db.database, t.clock, { kind: 'operator' }, {
      organizationId: created.id, projectId, name: 'k', scopes, expiresInDays: 30, allowedOrigins,
    });
    const good = await key(projectOf.mainnet, ALL_SCOPES);
    const bad = await key(projectOf[refused.network], refused.scopes, refused.allowedOrigins);
    return { good: good.apiKey, refused: bad.apiKey };
  }

  const cases = [
    {
      transport: 'REST',
      refused: { network: 'testnet' as const, scopes: ['data'] as Scope[] },
      request: { method: 'GET' as const, url: OBJECT },
      body: { error: 'Network mismatch', code: 'NETWORK_MISMATCH', message: 'This key is bound to testnet; use the testnet endpoint instead of mainnet.' },
    },
    {
      transport: 'management',
      refused: { network: 'mainnet' as const, scopes: ['data'] as Scope[] },
      request: { method: 'GET' as const, url: '/mainnet/v1/keys' },
      body: { error: 'Insufficient scope', code: 'INSUFFICIENT_SCOPE', message: "This operation needs the 'manage' scope." },
    },
    {
      transport: 'JSON-RPC POST',
      refused: { network: 'mainnet' as const, scopes: ['streams'] as Scope[] },
      request: { method: 'POST' as const, url: '/mainnet/v1/jsonrpc', payload: JSONRPC_CALL },
      body: { error: 'Insufficient scope', code: 'INSUFFICIENT_SCOPE', message: "This operation needs the 'data' scope." },
    },
    {
      transport: 'GraphQL',
      refused: { network: 'mainnet' as const, scopes: ['data'] as Scope[], allowedOrigins: ['app.example.com'] },
      request: { method: 'POST' as const, url: '/mainnet/v1/graphql', payload: { query: '{ chainIdentifier }' }, headers: { origin: 'https://evil.example.net' } },
      body: { error: 'Origin not allowed', code: 'ORIGIN_NOT_ALLOWED', message: 'Origin https://evil.example.net is not allowed for this key.' },
    },
  ];

  it.each(cases)('$transport: 403 $body.code with the organization\'s current values; nothing consumed, nothing charged', async ({ refused, request, body }) => {
    const org = await organization(refused);
    const admitted = await t.app.inject({ url: OBJECT, headers: { 'x-api-key': org.good } });
    expect(admitted.statusCode, admitted.body).toBe(200);
    expect(admitted.headers['x-ratelimit-remaining']).toBe('49');
    expect(admitted.headers['x-svc-credit-remaining']).toBe('24999999');

    // The first refusal looks the key up (not cached yet), the second finds it cached: both alike.
    for (const lookup of ['uncached', 'cached']) {
      const response = await t.app.inject({ ...request, headers: { ...request.headers, 'x-api-key': org.refused } });
      expect(response.statusCode, lookup).toBe(403);
      expect(response.json()).toEqual({ ...body, requestId: response.headers['x-request-id'] });
      expect(response.headers['x-ratelimit-limit'], lookup).toBe('50');
      expect(response.headers['x-ratelimit-remaining'], lookup).toBe('49');
      // One request of 50 per second spent 20 ms of the allowance: whole again within this second.
      expect(response.headers['x-ratelimit-reset'], lookup).toBe(String(t.clock.now() / 1000 + 1));
      // The credit headers belong to the meter stage, which a refused request never reaches.
      expect(response.headers['x-svc-credit-remaining']).toBeUndefined();
    }

    const after = await t.app.inject({ url: OBJECT, headers: { 'x-api-key': org.good } });
    expect(after.headers['x-ratelimit-remaining']).toBe('48');
    expect(after.headers['x-svc-credit-remaining']).toBe('24999998');
  });

  it('a 401 (no key, an unknown key) has no organization and carries none', async () => {
    for (const headers of [{}, { 'x-api-key': `svc_pat_${'1'.repeat(44)}` }]) {
      const response = await t.app.inject({ url: OBJECT, headers });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({ error: expect.any(String), requestId: response.headers['x-request-id'] });
      expect(Object.keys(response.headers).filter((name) => name.startsWith('x-ratelimit-'))).toEqual([]);
    }
  });
});
