import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeUpstream } from '../../../test/support/fake-upstream.js';
import { createTestApp, type TestApp } from '../../../test/support/test-app.js';
import { defaultUpstreamPolicy, SuiUpstream } from '../../upstream/index.js';

const policy = {
  ...defaultUpstreamPolicy, deadlineMs: 800, attemptTimeoutMs: 300, retries: 2, retryBaseDelayMs: 10, retryMaxDelayMs: 20,
  breakerFailureThreshold: 100, breakerCooldownMs: 60_000, healthTimeoutMs: 3_000,
};
const OBJECT = `/mainnet/v1/objects/0x${'5'.repeat(64)}`;

function get(gateway: TestApp, url: string) {
  return gateway.app.inject({ url, headers: { 'x-api-key': gateway.adminKey } });
}

describe('REST over a failing upstream: documented status and code, within the deadline', () => {
  let fake: Awaited<ReturnType<typeof startFakeUpstream>>;
  let upstream: SuiUpstream;
  let gateway: TestApp;
  beforeAll(async () => {
    fake = await startFakeUpstream();
    upstream = new SuiUpstream({ network: 'mainnet', endpoints: { grpcUrl: fake.grpcUrl, graphqlUrl: fake.graphqlUrl }, policy });
    gateway = await createTestApp({ extra: { upstreams: new Map([['mainnet', upstream]]) } });
  });
  afterAll(async () => { await gateway.close(); await upstream.close(); await fake.stop(); });
  beforeEach(() => { fake.state.behaviour = 'ok'; fake.state.calls = 0; });

  it('answers from a healthy upstream', async () => {
    const response = await get(gateway, OBJECT);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().data).toMatchObject({ objectId: `0x${'5'.repeat(64)}`, version: '1' });
  });

  it('slow upstream → 504 UPSTREAM_TIMEOUT, no later than the deadline', async () => {
    fake.state.behaviour = 'slow';
    const started = Date.now();
    const response = await get(gateway, OBJECT);
    expect(response.statusCode).toBe(504);
    expect(response.json()).toMatchObject({ code: 'UPSTREAM_TIMEOUT' });
    expect(Date.now() - started).toBeLessThan(policy.deadlineMs + 1_000);
  });

  it('erroring upstream → 502 UPSTREAM_BAD_RESPONSE', async () => {
    fake.state.behaviour = 'error';
    const response = await get(gateway, OBJECT);
    expect(response.statusCode).toBe(502);
    expect(response.json()).toMatchObject({ code: 'UPSTREAM_BAD_RESPONSE' });
  });

  it('NOT_FOUND from upstream → 404 OBJECT_NOT_FOUND', async () => {
    fake.state.behaviour = 'not_found';
    const response = await get(gateway, OBJECT);
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ code: 'OBJECT_NOT_FOUND' });
  });

  it('/health reports the upstream and its state', async () => {
    const healthy = (await gateway.app.inject({ url: '/health' })).json();
    expect(healthy).toMatchObject({ status: 'ok', checks: { 'upstream:mainnet': { ok: true } } });
    fake.state.behaviour = 'error';
    const degraded = (await gateway.app.inject({ url: '/health' })).json();
    expect(degraded).toMatchObject({ status: 'degraded', checks: { 'upstream:mainnet': { ok: false, detail: expect.stringContaining('grpc down') } } });
  });
});

describe('REST over a stopped upstream', () => {
  it('→ 503 UPSTREAM_UNAVAILABLE within the deadline, then fails fast once the breaker opens; no sockets left', async () => {
    const fake = await startFakeUpstream();
    await fake.stop();
    const upstream = new SuiUpstream({ network: 'mainnet', endpoints: { grpcUrl: fake.grpcUrl, graphqlUrl: fake.graphqlUrl }, policy: { ...policy, breakerFailureThreshold: 3 } });
    const gateway = await createTestApp({ extra: { upstreams: new Map([['mainnet', upstream]]) } });
    const started = Date.now();
    const first = await get(gateway, OBJECT);
    expect(first.statusCode).toBe(503);
    expect(first.json()).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });
    expect(Date.now() - started).toBeLessThan(policy.deadlineMs + 1_000);
    const fastStart = Date.now();
    const again = await get(gateway, OBJECT);
    expect(again.json()).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', message: expect.stringMatching(/circuit open/) });
    expect(Date.now() - fastStart).toBeLessThan(250);
    await gateway.close();
    await upstream.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap')).toEqual([]);
  });
});
