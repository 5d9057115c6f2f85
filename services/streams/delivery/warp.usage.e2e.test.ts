import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ManualClock } from '../../core/index.js';
import { createTestApp, type TestApp } from '../../../test/support/test-app.js';
import { call } from '../../../test/support/management-calls.js';
import { WARP_ENGINES, type WarpEngine } from '../../../test/support/warp-engines.js';

interface UsageRoute { network: string; route: string; requests: number; credits: number }

/**
 * What a Warp connection costs ends up as durable usage rows (GET /v1/usage reads PostgreSQL):
 * the connect request (1 credit, by its route), each started connection minute on the injected
 * clock and each delivered event (docs/costs.md).
 */
describe('Warp usage through HTTP, SSE and WebSocket', () => {
  let t: TestApp;
  let engine: WarpEngine;
  let clock: ManualClock;
  let port: number;
  const createStream = async () => {
    const created = await call(t, 'POST', '/v1/streams', { key: t.adminKey, body: { name: 's', type: 'coin', filters: { coinTypes: ['0x2::sui::SUI'] } } });
    return (created.body.data as { id: string }).id;
  };
  const usageRoutes = async (): Promise<UsageRoute[]> => {
    const response = await call(t, 'GET', '/v1/usage', { key: t.adminKey });
    expect(response.status).toBe(200);
    return (response.body.data as { routes: UsageRoute[] }).routes;
  };
  beforeAll(async () => {
    clock = new ManualClock();
    engine = await WARP_ENGINES.find(([name]) => name === 'redis')![1](clock);
    t = await createTestApp({ tier: 'team', extra: { clock, warp: engine } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await t.close();
    await engine.close();
  });

  it('an SSE connect is 1 credit with the credit headers; its first minute another', async () => {
    const stream = await createStream();
    const aborted = new AbortController();
    const response = await fetch(`http://127.0.0.1:${port}/mainnet/v1/warp/${stream}/stream`, { headers: { 'x-api-key': t.adminKey }, signal: aborted.signal });
    expect(response.status).toBe(200);
    // team: 25,000,000 credits a month; the connect was settled before the first minute was charged.
    expect(response.headers.get('x-svc-credit-remaining')).toBe('24999999');
    expect(response.headers.get('x-ratelimit-limit')).toBe('50');
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('event: connected')) text += new TextDecoder().decode((await reader.read()).value);
    aborted.abort();
    expect(await usageRoutes()).toEqual([
      { network: 'mainnet', route: 'GET /v1/warp/:id/stream', requests: 1, credits: 1 },
      { network: 'mainnet', route: 'WARP connection minute', requests: 1, credits: 1 },
    ]);
  });

  it('a WebSocket connect is 1 credit, each started minute 1 and each delivered event 1, all in GET /v1/usage', async () => {
    const stream = await createStream();
    await engine.log.append(stream, [{ kind: 'coin', data: { n: 0 } }, { kind: 'coin', data: { n: 1 } }]);
    const socket = new WebSocket(`ws://127.0.0.1:${port}/mainnet/v1/warp/${stream}/ws?mode=resume`, { headers: { 'x-api-key': t.adminKey } });
    const events: string[] = [];
    socket.on('message', (raw) => {
      const message = JSON.parse(String(raw)) as { event: string; id?: string };
      if (message.id === undefined) return;
      events.push(message.id);
      socket.send(JSON.stringify({ type: 'ack', id: message.id }));
    });
    await expect.poll(() => events.length).toBe(2);
    // The second connection minute starts on the clock: charged by the connection's next tick.
    clock.advance(60_000);
    await expect.poll(async () => (await usageRoutes()).find((row) => row.route === 'WARP connection minute')?.requests, { timeout: 10_000 }).toBe(3);
    socket.close();
    await new Promise((resolve) => socket.once('close', resolve));
    expect(await usageRoutes()).toEqual([
      { network: 'mainnet', route: 'GET /v1/warp/:id/stream', requests: 1, credits: 1 },
      { network: 'mainnet', route: 'GET /v1/warp/:id/ws', requests: 1, credits: 1 },
      { network: 'mainnet', route: 'WARP connection minute', requests: 3, credits: 3 },
      { network: 'mainnet', route: 'WARP event', requests: 2, credits: 2 },
    ]);
  });
});

describe('Warp with SUIGW_METERING=off', () => {
  it('delivers without charging: no credit headers, no usage rows', async () => {
    const clock = new ManualClock();
    const engine = await WARP_ENGINES.find(([name]) => name === 'memory')![1](clock);
    const t = await createTestApp({ tier: 'team', env: { SUIGW_METERING: 'off' }, extra: { clock, warp: engine } });
    try {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const created = await call(t, 'POST', '/v1/streams', { key: t.adminKey, body: { name: 's', type: 'coin', filters: { coinTypes: ['0x2::sui::SUI'] } } });
      const stream = (created.body.data as { id: string }).id;
      await engine.log.append(stream, [{ kind: 'coin', data: { n: 0 } }]);
      const port = (t.app.server.address() as AddressInfo).port;
      const socket = new WebSocket(`ws://127.0.0.1:${port}/mainnet/v1/warp/${stream}/ws?mode=resume`, { headers: { 'x-api-key': t.adminKey } });
      const events: string[] = [];
      socket.on('message', (raw) => {
        const message = JSON.parse(String(raw)) as { id?: string };
        if (message.id !== undefined) events.push(message.id);
      });
      await expect.poll(() => events.length).toBe(1);
      clock.advance(60_000);
      socket.close();
      await new Promise((resolve) => socket.once('close', resolve));
      const usage = await call(t, 'GET', '/v1/usage', { key: t.adminKey });
      expect(usage.status).toBe(200);
      expect((usage.body.data as { routes: unknown[] }).routes).toEqual([]);
    } finally {
      await t.close();
      await engine.close();
    }
  });
});
