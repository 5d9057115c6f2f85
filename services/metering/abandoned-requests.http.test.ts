import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startFakeUpstream } from '../../test/support/fake-upstream.js';
import { call } from '../../test/support/management-calls.js';
import { createTestApp, type TestApp } from '../../test/support/test-app.js';
import { defaultUpstreamPolicy, SuiUpstream } from '../upstream/index.js';

const OBJECT_ROUTE = '/v1/objects/:id';
const OBJECT = `/mainnet/v1/objects/0x${'5'.repeat(64)}`;

interface UsageRoute { network: string; route: string; requests: number; credits: number }

/**
 * The REST half of the rule a cancelled gRPC call follows too (proxy.call-end.test.ts): a request
 * whose client leaves before its answer is recorded and not charged (docs/metering.md, "Costs").
 */
describe('a REST request its client abandons', () => {
  let fake: Awaited<ReturnType<typeof startFakeUpstream>>;
  let upstream: SuiUpstream;
  let gateway: TestApp;
  let origin: string;
  beforeAll(async () => {
    fake = await startFakeUpstream();
    // The node answers GetObject only after the client has left.
    fake.state.slowMethods.add('GetObject');
    upstream = new SuiUpstream({ network: 'mainnet', endpoints: { grpcUrl: fake.grpcUrl, graphqlUrl: fake.graphqlUrl }, policy: defaultUpstreamPolicy });
    gateway = await createTestApp({ extra: { upstreams: new Map([['mainnet', upstream]]) } });
    await gateway.app.listen({ host: '127.0.0.1', port: 0 });
    origin = `http://127.0.0.1:${(gateway.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await gateway.close();
    await upstream.close();
    await fake.stop();
  });

  it('cancels its upstream call, is recorded in GET /v1/usage and costs 0 credits', async () => {
    const request = http.get(`${origin}${OBJECT}`, { headers: { 'x-api-key': gateway.adminKey } });
    request.on('error', () => undefined);
    await vi.waitFor(() => expect(fake.method('GetObject').calls).toBe(1), { timeout: 10_000 });
    request.destroy();
    await vi.waitFor(() => expect(fake.method('GetObject').cancelled).toBe(1), { timeout: 10_000 });
    await vi.waitFor(async () => {
      const usage = await call(gateway, 'GET', '/v1/usage', { key: gateway.adminKey });
      expect(usage.status).toBe(200);
      expect((usage.body.data as { routes: UsageRoute[] }).routes).toEqual([
        { network: 'mainnet', route: `GET ${OBJECT_ROUTE}`, requests: 1, credits: 0 },
      ]);
    }, { timeout: 10_000 });
  });
});
