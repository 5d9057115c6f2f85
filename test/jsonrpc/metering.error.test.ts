import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, createTestApp, type TestApp } from '../support/test-app.js';
import { startFakeUpstream } from '../support/fake-upstream.js';
import { createKey, createOrganization } from '../../services/identity/index.js';
import { defaultUpstreamPolicy, SuiUpstream } from '../../services/upstream/index.js';

const policy = {
  // Room for a loaded machine's first connection; 'slow' hangs far longer than the deadline.
  ...defaultUpstreamPolicy, deadlineMs: 2_500, attemptTimeoutMs: 2_000, retries: 0, retryBaseDelayMs: 10, retryMaxDelayMs: 20,
  breakerFailureThreshold: 1_000, breakerCooldownMs: 60_000, healthTimeoutMs: 3_000,
};
const URL = '/mainnet/v1/jsonrpc';
const OBJECT_CALL = { jsonrpc: '2.0', id: 7, method: 'sui_getObject', params: [`0x${'5'.repeat(64)}`] };

/** Upstream failures as JSON-RPC server errors, and what a call or a batch is charged. */
describe('POST /v1/jsonrpc over a failing upstream, and its credits', () => {
  let fake: Awaited<ReturnType<typeof startFakeUpstream>>;
  let upstream: SuiUpstream;
  let t: TestApp;

  const post = (key: string, payload: unknown) => {
    t.clock.advance(200);
    return t.app.inject({ method: 'POST', url: URL, headers: { 'x-api-key': key, 'content-type': 'application/json' }, payload: JSON.stringify(payload) });
  };
  const remaining = (response: { headers: Record<string, unknown> }) => Number(response.headers['x-svc-credit-remaining']);

  async function walletKey(prepaidMicroUsd: bigint): Promise<string> {
    // A wallet organization has no monthly credits: 10 micro-USD prepaid = 1 credit.
    const { organization, projects } = await createOrganization(t.db.database.db, t.clock, { name: 'W', tier: 'wallet', projects: [{ name: 'D', network: 'mainnet' }] });
    await t.db.database.db.updateTable('organizations').set({ prepaid_micro_usd: prepaidMicroUsd }).where('id', '=', organization.id).execute();
    const key = await createKey(t.db.database, t.clock, { kind: 'operator' }, {
      organizationId: organization.id, projectId: projects[0]!.id, name: 'k', scopes: ALL_SCOPES, expiresInDays: 30,
    });
    return key.apiKey;
  }

  beforeAll(async () => {
    fake = await startFakeUpstream();
    upstream = new SuiUpstream({ network: 'mainnet', endpoints: { grpcUrl: fake.grpcUrl, graphqlUrl: fake.graphqlUrl }, policy });
    t = await createTestApp({ extra: { upstreams: new Map([['mainnet', upstream]]) } });
  });
  afterAll(async () => {
    await t.close();
    await upstream.close();
    await fake.stop();
  });

  it.each([
    ['unavailable', 'UPSTREAM_UNAVAILABLE'],
    ['slow', 'UPSTREAM_TIMEOUT'],
    ['error', 'UPSTREAM_BAD_RESPONSE'],
  ] as const)('an upstream that is %s answers -32000 with data.code %s, HTTP 200, not charged', async (behaviour, code) => {
    fake.state.behaviour = 'ok';
    const before = await post(t.adminKey, OBJECT_CALL);
    expect(before.json().result?.data?.objectId, before.body).toBe(`0x${'5'.repeat(64)}`);
    fake.state.behaviour = behaviour;
    const failed = await post(t.adminKey, OBJECT_CALL);
    fake.state.behaviour = 'ok';
    expect(failed.statusCode).toBe(200);
    expect(failed.json()).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32000, message: expect.stringMatching(/^Server error: /), data: { code } } });
    expect(remaining(failed)).toBe(remaining(before));
  });

  it('an upstream NOT_FOUND is the caller\'s: a legacy "notExists" result, charged', async () => {
    fake.state.behaviour = 'not_found';
    const first = await post(t.adminKey, OBJECT_CALL);
    const second = await post(t.adminKey, OBJECT_CALL);
    fake.state.behaviour = 'ok';
    expect(second.json()).toEqual({ jsonrpc: '2.0', id: 7, result: { error: { code: 'notExists', object_id: `0x${'5'.repeat(64)}` } } });
    expect(remaining(first) - remaining(second)).toBe(1);
  });

  it('a batch is charged per call, less the calls that failed upstream', async () => {
    const start = await post(t.adminKey, OBJECT_CALL);
    const batch = await post(t.adminKey, [OBJECT_CALL, { ...OBJECT_CALL, id: 8 }, { jsonrpc: '2.0', id: 9, method: 'nope' }]);
    expect(batch.json()).toHaveLength(3);
    expect(remaining(start) - remaining(batch)).toBe(3);
    fake.state.behaviour = 'unavailable';
    const failing = await post(t.adminKey, [OBJECT_CALL, { jsonrpc: '2.0', id: 9, method: 'nope' }]);
    fake.state.behaviour = 'ok';
    expect(failing.json().map((response: { error: { code: number } }) => response.error.code)).toEqual([-32000, -32601]);
    expect(remaining(batch) - remaining(failing)).toBe(1);
  });

  it('a batch the credits cannot cover is 429 CU_QUOTA_EXCEEDED, none of its calls run, nothing is charged', async () => {
    const key = await walletKey(20n);
    const refused = await post(key, [OBJECT_CALL, OBJECT_CALL, OBJECT_CALL]);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({ error: 'Monthly credits spent', code: 'CU_QUOTA_EXCEEDED', requestId: refused.headers['x-request-id'] });
    expect(refused.headers['x-svc-credit-remaining']).toBe('2');
    const fits = await post(key, [OBJECT_CALL, { ...OBJECT_CALL, id: 8 }]);
    expect(fits.statusCode).toBe(200);
    expect(fits.headers['x-svc-credit-remaining']).toBe('0');
  });
});
