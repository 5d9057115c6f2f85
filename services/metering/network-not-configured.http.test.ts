import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { call } from '../../test/support/management-calls.js';
import { createTestApp, type TestApp } from '../../test/support/test-app.js';

interface UsageRoute { network: string; route: string; requests: number; credits: number }

const OBJECT = `/mainnet/v1/objects/0x${'5'.repeat(64)}`;

/**
 * A network the operator gave no upstream answers 404 NETWORK_NOT_CONFIGURED on every data
 * transport. That is the deployment's configuration, not the caller's request: like a 5xx, it is
 * not charged (docs/metering.md, "Costs"). The gRPC proxy refuses it before admission.
 */
describe('NETWORK_NOT_CONFIGURED is not charged', () => {
  let gateway: TestApp;
  beforeAll(async () => {
    // No upstream for any network.
    gateway = await createTestApp();
  });
  afterAll(async () => gateway.close());

  it('REST, JSON-RPC, GraphQL and the JSON-RPC WebSocket each record their request with 0 credits', async () => {
    const headers = { 'x-api-key': gateway.adminKey };
    const rest = await gateway.app.inject({ url: OBJECT, headers });
    expect([rest.statusCode, rest.json().code]).toEqual([404, 'NETWORK_NOT_CONFIGURED']);

    const jsonRpc = await gateway.app.inject({
      method: 'POST', url: '/mainnet/v1/jsonrpc', headers: { ...headers, 'content-type': 'application/json' },
      payload: { jsonrpc: '2.0', id: 1, method: 'sui_getChainIdentifier', params: [] },
    });
    expect(jsonRpc.statusCode).toBe(200);
    expect(jsonRpc.json()).toMatchObject({ id: 1, error: { data: { code: 'NETWORK_NOT_CONFIGURED' } } });

    const graphql = await gateway.app.inject({
      method: 'POST', url: '/mainnet/v1/graphql', headers: { ...headers, 'content-type': 'application/json' },
      payload: { query: '{ chainIdentifier }' },
    });
    expect([graphql.statusCode, graphql.json().code]).toEqual([404, 'NETWORK_NOT_CONFIGURED']);

    await gateway.app.listen({ host: '127.0.0.1', port: 0 });
    const port = (gateway.app.server.address() as AddressInfo).port;
    const socket = new WebSocket(`ws://127.0.0.1:${port}/mainnet/v1/jsonrpc`, { headers });
    const closed = await new Promise<{ code: number; reason: string }>((resolve, reject) => {
      socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() }));
      socket.once('error', reject);
    });
    expect(closed).toEqual({ code: 1013, reason: 'no upstream for this network' });

    const usage = await call(gateway, 'GET', '/v1/usage', { key: gateway.adminKey });
    expect(usage.status).toBe(200);
    const routes = (usage.body.data as { routes: UsageRoute[] }).routes;
    expect([...routes].sort((a, b) => a.route.localeCompare(b.route))).toEqual([
      { network: 'mainnet', route: 'GET /v1/jsonrpc', requests: 1, credits: 0 },
      { network: 'mainnet', route: `GET /v1/objects/:id`, requests: 1, credits: 0 },
      { network: 'mainnet', route: 'POST /v1/graphql', requests: 1, credits: 0 },
      { network: 'mainnet', route: 'POST /v1/jsonrpc', requests: 1, credits: 0 },
    ]);
  });
});
