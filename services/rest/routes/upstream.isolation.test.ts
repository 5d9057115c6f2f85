import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeBehaviour } from '../../../test/support/fake-upstream.js';
import { createTestApp, type TestApp } from '../../../test/support/test-app.js';
import { createKey, createOrganization } from '../../identity/index.js';
import { defaultUpstreamPolicy, SuiUpstream, type UpstreamPolicy } from '../../upstream/index.js';

const OBJECT = `/mainnet/v1/objects/0x${'5'.repeat(64)}`;

async function gatewayOver(fake: Awaited<ReturnType<typeof startFakeUpstream>>, policy: Partial<UpstreamPolicy>) {
  const upstream = new SuiUpstream({ network: 'mainnet', endpoints: { grpcUrl: fake.grpcUrl, graphqlUrl: fake.graphqlUrl }, policy: { ...defaultUpstreamPolicy, ...policy } });
  const gateway = await createTestApp({ extra: { upstreams: new Map([['mainnet', upstream]]) } });
  return { upstream, gateway, async close() { await gateway.close(); await upstream.close(); } };
}

/** A key of a second, unrelated organization (its own mainnet project). */
async function otherTenantKey(gateway: TestApp): Promise<string> {
  const other = await createOrganization(gateway.db.database.db, gateway.clock, { name: 'Globex', tier: 'team', projects: [{ name: 'Default', network: 'mainnet' }] });
  const key = await createKey(gateway.db.database, gateway.clock, { kind: 'operator' }, {
    organizationId: other.organization.id, projectId: other.projects[0]!.id, name: 'data', scopes: ['data'], expiresInDays: 30,
  });
  return key.apiKey;
}

/** Both gRPC transports must give the same answers (docs/architecture.md, upstream transport). */
describe.each(['h2', 'grpc-js'] as const)('%s upstream transport', (grpcTransport) => {
  describe('one tenant\'s node-rejected input cannot take the network away from another', () => {
    let fake: Awaited<ReturnType<typeof startFakeUpstream>>;
    let under: Awaited<ReturnType<typeof gatewayOver>>;
    beforeAll(async () => {
      fake = await startFakeUpstream();
      // The production threshold and cooldown: five counted failures would open the breaker for 10 s.
      under = await gatewayOver(fake, { grpcTransport });
    });
    afterAll(async () => { await under.close(); await fake.stop(); });
    beforeEach(() => { fake.state.behaviour = 'ok'; });

    it.each([
      ['invalid_argument', 400, 'VALIDATION_FAILED'],
      ['out_of_range', 400, 'VALIDATION_FAILED'],
      ['unimplemented', 502, 'UPSTREAM_BAD_RESPONSE'],
      ['unknown', 502, 'UPSTREAM_BAD_RESPONSE'],
      ['error', 502, 'UPSTREAM_BAD_RESPONSE'],
      ['resource_exhausted', 503, 'UPSTREAM_UNAVAILABLE'],
      ['aborted', 503, 'UPSTREAM_UNAVAILABLE'],
    ] as [FakeBehaviour, number, string][])('20 requests the node answers %s → %i %s each; then another organization gets 200', async (behaviour, status, code) => {
      const { gateway } = under;
      fake.state.behaviour = behaviour;
      for (let i = 0; i < 20; i += 1) {
        // Ten requests a second on the test's clock: well inside the team plan's rate, so every
        // answer below is the node's, not the organization-wide limit's.
        gateway.clock.advance(100);
        const response = await gateway.app.inject({ url: OBJECT, headers: { 'x-api-key': gateway.adminKey } });
        expect([response.statusCode, response.json().code]).toEqual([status, code]);
        if (status === 503) expect(response.headers['retry-after']).toBe('1');
      }
      fake.state.behaviour = 'ok';
      const other = await gateway.app.inject({ url: OBJECT, headers: { 'x-api-key': await otherTenantKey(gateway) } });
      expect(other.statusCode, other.body).toBe(200);
      expect(under.upstream.breakers()).toEqual({ grpc: 'closed' });
    });
  });

  describe('one deadline per request', () => {
    let fake: Awaited<ReturnType<typeof startFakeUpstream>>;
    beforeAll(async () => { fake = await startFakeUpstream(); });
    afterAll(async () => { await fake.stop(); });

    it('a request whose upstream calls together outlast the budget gets 504 UPSTREAM_TIMEOUT, though each call alone fits', async () => {
      // /transactions/stats: GetServiceInfo, then 20 GetCheckpoint; each answers in 250 ms (under
      // the 300 ms attempt timeout), the request's budget is 400 ms.
      const under = await gatewayOver(fake, { grpcTransport, deadlineMs: 400, attemptTimeoutMs: 300 });
      try {
        fake.state.behaviour = 'delay';
        fake.state.delayMs = 250;
        const response = await under.gateway.app.inject({ url: '/mainnet/v1/transactions/stats', headers: { 'x-api-key': under.gateway.adminKey } });
        expect([response.statusCode, response.json().code]).toEqual([504, 'UPSTREAM_TIMEOUT']);
        // Cut short by the request's budget, not by a slow node: the breaker stays closed.
        expect(under.upstream.breakers()).toEqual({ grpc: 'closed' });
      } finally {
        await under.close();
      }
    });

    it('a client that disconnects cancels its upstream call (the node sees the cancellation)', async () => {
      const under = await gatewayOver(fake, { grpcTransport, deadlineMs: 20_000, attemptTimeoutMs: 20_000 });
      try {
        fake.state.behaviour = 'slow';
        fake.state.slowMs = 15_000;
        fake.state.cancelled = 0;
        fake.state.calls = 0;
        await under.gateway.app.listen({ port: 0, host: '127.0.0.1' });
        const { port } = under.gateway.app.server.address() as AddressInfo;
        const request = http.get({ host: '127.0.0.1', port, path: OBJECT, headers: { 'x-api-key': under.gateway.adminKey } });
        request.on('error', () => undefined);
        const before = fake.method('GetObject');
        await expect.poll(() => fake.method('GetObject').calls, { timeout: 5_000 }).toBe(before.calls + 1);
        request.destroy();
        // Well before the 20 s attempt timeout would end the call on its own.
        await expect.poll(() => fake.method('GetObject').cancelled, { timeout: 3_000 }).toBe(before.cancelled + 1);
        expect(under.upstream.breakers()).toEqual({ grpc: 'closed' });
      } finally {
        fake.state.slowMs = 10_000;
        await under.close();
      }
    });
  });
});
