import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeUpstream } from '../../../test/support/fake-upstream.js';
import { createTestApp, type TestApp } from '../../../test/support/test-app.js';
import { createKey } from '../../identity/index.js';
import { defaultUpstreamPolicy, SuiUpstream } from '../../upstream/index.js';

const basePolicy = {
  ...defaultUpstreamPolicy, deadlineMs: 800, attemptTimeoutMs: 300, retries: 2, retryBaseDelayMs: 10, retryMaxDelayMs: 20,
  breakerFailureThreshold: 100, breakerCooldownMs: 60_000, healthTimeoutMs: 3_000,
};
const OBJECT = `/mainnet/v1/objects/0x${'5'.repeat(64)}`;

function get(gateway: TestApp, url: string) {
  return gateway.app.inject({ url, headers: { 'x-api-key': gateway.adminKey } });
}

/** Both gRPC transports must give the same answers (docs/architecture.md, upstream transport). */
describe.each(['h2', 'grpc-js'] as const)('%s upstream transport', (grpcTransport) => {
  const policy = { ...basePolicy, grpcTransport };

  describe('REST over a failing upstream: documented status and code, within the deadline', () => {
    let fake: Awaited<ReturnType<typeof startFakeUpstream>>;
    let upstream: SuiUpstream;
    let gateway: TestApp;
    beforeAll(async () => {
      fake = await startFakeUpstream();
      upstream = new SuiUpstream({ network: 'mainnet', endpoints: { grpcUrl: fake.grpcUrl, graphqlUrl: fake.graphqlUrl }, policy });
      gateway = await createTestApp({ env: { SUIGW_UPSTREAM_PROBE_INTERVAL_MS: '100' }, extra: { upstreams: new Map([['mainnet', upstream]]) } });
    });
    afterAll(async () => { await gateway.close(); await upstream.close(); await fake.stop(); });
    beforeEach(() => { fake.state.behaviour = 'ok'; fake.state.calls = 0; });

    it('answers from a healthy upstream', async () => {
      const response = await get(gateway, OBJECT);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json().data).toMatchObject({ objectId: `0x${'5'.repeat(64)}`, version: '1' });
    });

    it('slow upstream → 504 UPSTREAM_TIMEOUT (the deadline ends it)', async () => {
      fake.state.behaviour = 'slow';
      const response = await get(gateway, OBJECT);
      expect(response.statusCode).toBe(504);
      expect(response.json()).toMatchObject({ code: 'UPSTREAM_TIMEOUT' });
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

    it('/health is public and terse: degraded once the background probe finds the upstream failing, never calling it itself', async () => {
      await expect.poll(async () => (await gateway.app.inject({ url: '/health' })).json().status, { timeout: 5_000 }).toBe('ok');
      const healthy = (await gateway.app.inject({ url: '/health' })).json();
      expect(Object.keys(healthy).sort()).toEqual(['database', 'stats', 'status', 'timestamp']);
      fake.state.behaviour = 'error';
      await expect.poll(async () => (await gateway.app.inject({ url: '/health' })).json().status, { timeout: 5_000 }).toBe('degraded');
      const degraded = await gateway.app.inject({ url: '/health' });
      expect(degraded.statusCode).toBe(200);
      expect(degraded.body).not.toMatch(/127\.0\.0\.1|boom|grpc|graphql/);
    });

    it('/health itself never calls the upstream', async () => {
      const own = await startFakeUpstream();
      const ownUpstream = new SuiUpstream({ network: 'mainnet', endpoints: { grpcUrl: own.grpcUrl, graphqlUrl: own.graphqlUrl }, policy });
      const unprobed = await createTestApp({ env: { SUIGW_UPSTREAM_PROBE_INTERVAL_MS: '600000' }, extra: { upstreams: new Map([['mainnet', ownUpstream]]) } });
      try {
        // The first background probe (at start): one gRPC and one GraphQL call.
        await expect.poll(() => own.state.calls, { timeout: 5_000 }).toBe(2);
        for (let i = 0; i < 10; i += 1) expect((await unprobed.app.inject({ url: '/health' })).statusCode).toBe(200);
        expect(own.state.calls).toBe(2);
      } finally {
        await unprobed.close();
        await ownUpstream.close();
        await own.stop();
      }
    });

    it('GET /{network}/v1/health/details: the last probe and each breaker group, for the manage scope only', async () => {
      fake.state.behaviour = 'error';
      await expect.poll(async () => (await get(gateway, '/mainnet/v1/health/details')).json().data?.grpc?.status, { timeout: 5_000 }).toBe('down');
      const details = (await get(gateway, '/mainnet/v1/health/details')).json().data;
      expect(details).toMatchObject({ network: 'mainnet', status: 'down', grpc: { status: 'down', probe: 'down', breaker: 'closed', error: 'boom' }, graphql: { status: 'down', probe: 'down' } });
      // The earlier tests' calls went through the grpc group; the probe does not count toward any.
      expect(details.breakers).toEqual({ grpc: 'closed' });
      const dataOnly = await createKey(gateway.db.database, gateway.clock, { kind: 'operator' }, {
        organizationId: gateway.organizationId, projectId: gateway.projects.mainnet, name: 'data', scopes: ['data'], expiresInDays: 30,
      });
      const refused = await gateway.app.inject({ url: '/mainnet/v1/health/details', headers: { 'x-api-key': dataOnly.apiKey } });
      expect([refused.statusCode, refused.json().code]).toEqual([403, 'INSUFFICIENT_SCOPE']);
      expect((await gateway.app.inject({ url: '/mainnet/v1/health/details' })).statusCode).toBe(401);
    });
  });

  describe('REST over a stopped upstream', () => {
    it('→ 503 UPSTREAM_UNAVAILABLE, then fails fast once the breaker opens (no upstream attempt); no sockets left', async () => {
      const fake = await startFakeUpstream();
      await fake.stop();
      const upstream = new SuiUpstream({ network: 'mainnet', endpoints: { grpcUrl: fake.grpcUrl, graphqlUrl: fake.graphqlUrl }, policy: { ...policy, breakerFailureThreshold: 3 } });
      const gateway = await createTestApp({ extra: { upstreams: new Map([['mainnet', upstream]]) } });
      const first = await get(gateway, OBJECT);
      expect(first.statusCode).toBe(503);
      expect(first.json()).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });
      // Failing fast is the breaker's answer (its message), not a timing: no timings in tests.
      const again = await get(gateway, OBJECT);
      expect(again.json()).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', message: expect.stringMatching(/circuit open/) });
      expect(again.headers['retry-after']).toMatch(/^\d+$/);

      await gateway.close();
      await upstream.close();
      // A closed socket leaves the handle list on a later turn of the loop; on a loaded machine
      // that can take a while: poll (the deadline only bounds a leak).
      await expect.poll(() => process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap'), { timeout: 10_000, interval: 50 }).toEqual([]);
    });
  });

  describe('/health while a breaker is open', () => {
    it('says degraded, though the last probe found the upstream up; /health/details says the same, showing both', async () => {
      const fake = await startFakeUpstream();
      const upstream = new SuiUpstream({ network: 'mainnet', endpoints: { grpcUrl: fake.grpcUrl, graphqlUrl: fake.graphqlUrl }, policy: { ...policy, breakerFailureThreshold: 3 } });
      const gateway = await createTestApp({ env: { SUIGW_UPSTREAM_PROBE_INTERVAL_MS: '600000' }, extra: { upstreams: new Map([['mainnet', upstream]]) } });
      try {
        await expect.poll(async () => (await gateway.app.inject({ url: '/health' })).json().status, { timeout: 5_000 }).toBe('ok');
        fake.state.behaviour = 'unavailable';
        for (let i = 0; i < 3; i += 1) await get(gateway, OBJECT);
        expect(upstream.breakers()).toMatchObject({ grpc: 'open' });
        expect((await gateway.app.inject({ url: '/health' })).json().status).toBe('degraded');
        // One view: the gRPC probe said up, its breaker refuses requests now, so gRPC is down.
        const details = (await get(gateway, '/mainnet/v1/health/details')).json().data;
        expect(details).toMatchObject({
          status: 'degraded',
          grpc: { status: 'down', probe: 'up', breaker: 'open' },
          graphql: { status: 'up', probe: 'up', breaker: 'closed' },
        });
        expect(details.breakers).toEqual({ grpc: 'open' });
      } finally {
        await gateway.close();
        await upstream.close();
        await fake.stop();
      }
    });
  });
});
