import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream } from '../../test/support/fake-upstream.js';
import { ALL_SCOPES, createTestApp, type TestApp } from '../../test/support/test-app.js';
import { createKey } from '../identity/index.js';
import { defaultUpstreamPolicy, SuiUpstream } from '../upstream/index.js';

const OBJECT = `/mainnet/v1/objects/0x${'5'.repeat(64)}`;

/**
 * SUIGW_METERING=off removes the limit and meter stages: the same requests that a per-key cap
 * refuses with metering on all pass and carry no rate-limit or credit headers.
 * Auth is untouched: it is not a metering stage.
 */
describe.each([
  { metering: 'on', capped: 1, headers: true },
  { metering: 'off', capped: 0, headers: false },
])('SUIGW_METERING=$metering', ({ metering, capped, headers }) => {
  let fake: Awaited<ReturnType<typeof startFakeUpstream>>;
  let upstream: SuiUpstream;
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    fake = await startFakeUpstream();
    upstream = new SuiUpstream({ network: 'mainnet', endpoints: { grpcUrl: fake.grpcUrl, graphqlUrl: fake.graphqlUrl }, policy: { ...defaultUpstreamPolicy, retries: 0 } });
    t = await createTestApp({ env: { SUIGW_METERING: metering }, extra: { upstreams: new Map([['mainnet', upstream]]) } });
    key = (await createKey(t.db.database, t.clock, { kind: 'operator' }, {
      organizationId: t.organizationId, projectId: t.projects.mainnet, name: 'capped', scopes: ALL_SCOPES, expiresInDays: 30,
      rateLimit: { perKeyRps: 1 },
    })).apiKey;
  });
  afterAll(async () => {
    await t.close();
    await upstream.close();
    await fake.stop();
  });

  it('limits, charges and reports credits only when on', async () => {
    // Two requests within one second against a 1 rps per-key cap.
    const first = await t.app.inject({ url: OBJECT, headers: { 'x-api-key': key } });
    const second = await t.app.inject({ url: OBJECT, headers: { 'x-api-key': key } });
    expect(first.statusCode).toBe(200);
    expect([first, second].filter((response) => response.statusCode === 429)).toHaveLength(capped);
    if (capped) expect(second.json()).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED' });
    expect('x-ratelimit-limit' in first.headers).toBe(headers);
    expect('x-svc-credit-remaining' in first.headers).toBe(headers);
  });

  it('still authenticates', async () => {
    const response = await t.app.inject({ url: OBJECT, headers: { 'x-api-key': 'svc_pat_not_a_key' } });
    expect(response.statusCode).toBe(401);
  });
});
