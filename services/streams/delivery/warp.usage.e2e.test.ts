import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ManualClock, Metrics } from '../../core/index.js';
import { createTestApp, type TestApp } from '../../../test/support/test-app.js';
import { call } from '../../../test/support/management-calls.js';
import { WARP_ENGINES, type WarpEngine } from '../../../test/support/warp-engines.js';
import { startWarpApp, type WarpApp } from '../../../test/support/warp-app.js';

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

  it('SSE events are charged when written: a Last-Event-ID resume charges again the events after it (at-least-once), never those through it', async () => {
    const stream = await createStream();
    await engine.log.append(stream, [0, 1, 2].map((n) => ({ kind: 'coin', data: { n } })));
    const warpEvents = async () => (await usageRoutes()).find((row) => row.route === 'WARP event')?.credits ?? 0;
    const before = await warpEvents();
    /** Reads the SSE response until `count` event ids arrived, then drops the connection. */
    const read = async (headers: Record<string, string>, count: number) => {
      const aborted = new AbortController();
      const response = await fetch(`http://127.0.0.1:${port}/mainnet/v1/warp/${stream}/stream?mode=resume`, { headers: { 'x-api-key': t.adminKey, ...headers }, signal: aborted.signal });
      const reader = response.body!.getReader();
      let text = '';
      const ids = () => [...text.matchAll(/^id: (.+)$/gm)].map((match) => match[1]!);
      while (ids().length < count) text += new TextDecoder().decode((await reader.read()).value);
      aborted.abort();
      return ids();
    };
    const written = await read({}, 3);
    await expect.poll(warpEvents).toBe(before + 3);
    // Within the 30 s redelivery window the client resumes, saying it has the first event: the
    // two after it are written again and charged again; the first is not.
    expect(await read({ 'last-event-id': written[0]! }, 2)).toEqual(written.slice(1));
    await expect.poll(warpEvents).toBe(before + 5);
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

/**
 * Exactly-once means an event counts as delivered after the client's ack (spec: Warp): it is
 * charged then, once, however often it was sent; and every credit a connection costs reaches
 * suigw_credits_consumed_total as it reaches GET /v1/usage.
 */
describe('Warp WebSocket events are charged on their ack', () => {
  let t: TestApp;
  let engine: WarpEngine;
  let port: number;
  const metrics = new Metrics({ defaultMetrics: false });
  const warpEvents = async () => {
    const response = await call(t, 'GET', '/v1/usage', { key: t.adminKey });
    return (response.body.data as { routes: UsageRoute[] }).routes.find((row) => row.route === 'WARP event')?.credits ?? 0;
  };
  const consumed = async () => (await metrics.creditsConsumed.get()).values.reduce((sum, { value }) => sum + value, 0);
  const usageCredits = async () => {
    const response = await call(t, 'GET', '/v1/usage', { key: t.adminKey });
    return (response.body.data as { routes: UsageRoute[] }).routes.reduce((sum, row) => sum + row.credits, 0);
  };
  /** Connects, acknowledges the events whose `n` is in `ack` and returns every event id received once `expected` arrived. */
  const session = async (stream: string, query: string, expected: number, ack: (n: number) => boolean) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/mainnet/v1/warp/${stream}/ws?${query}`, { headers: { 'x-api-key': t.adminKey } });
    const received: { id: string; n: number }[] = [];
    socket.on('message', (raw) => {
      const message = JSON.parse(String(raw)) as { id?: string; data: { n: number } };
      if (message.id === undefined) return;
      received.push({ id: message.id, n: message.data.n });
      if (ack(message.data.n)) socket.send(JSON.stringify({ type: 'ack', id: message.id }));
    });
    await expect.poll(() => received.length).toBe(expected);
    socket.close();
    await new Promise((resolve) => socket.once('close', resolve));
    return received;
  };
  let warp: WarpApp;
  beforeAll(async () => {
    warp = await startWarpApp({ metrics });
    ({ t, engine, port } = warp);
  });
  afterAll(async () => warp.close());

  it('an unacknowledged event is not charged; its redelivery is charged once, on its ack', async () => {
    const created = await call(t, 'POST', '/v1/streams', { key: t.adminKey, body: { name: 's', type: 'coin', filters: { coinTypes: ['0x2::sui::SUI'] } } });
    const stream = (created.body.data as { id: string }).id;
    await engine.log.append(stream, [0, 1, 2].map((n) => ({ kind: 'coin', data: { n } })));
    await session(stream, 'mode=resume', 3, (n) => n === 0);
    await expect.poll(warpEvents).toBe(1);
    // Events 1 and 2 are pending: sent again, acknowledged this time.
    expect((await session(stream, 'mode=resume', 2, () => true)).map((event) => event.n)).toEqual([1, 2]);
    await expect.poll(warpEvents).toBe(3);
    expect(await consumed()).toBe(await usageCredits());
  });

  it('the credits held for events never acknowledged are given back when the connection closes', async () => {
    const created = await call(t, 'POST', '/v1/streams', { key: t.adminKey, body: { name: 's4', type: 'coin', filters: { coinTypes: ['0x2::sui::SUI'] } } });
    const stream = (created.body.data as { id: string }).id;
    await engine.log.append(stream, [0, 1, 2].map((n) => ({ kind: 'coin', data: { n } })));
    const credits = async () => Number((await call(t, 'GET', '/v1/account', { key: t.adminKey })).headers['x-svc-credit-remaining']);
    const before = await credits();
    await session(stream, 'mode=resume', 3, () => false);
    // The connect and its first minute; the three events were held when sent and never delivered.
    // Before, the close took their credits a second time instead of giving them back (before - 8).
    await expect.poll(credits).toBe(before - 2);
  });

  it('an ack of an id not in flight (never sent, or already acknowledged) charges nothing and acknowledges nothing', async () => {
    const created = await call(t, 'POST', '/v1/streams', { key: t.adminKey, body: { name: 's3', type: 'coin', filters: { coinTypes: ['0x2::sui::SUI'] } } });
    const stream = (created.body.data as { id: string }).id;
    const [first, second] = await engine.log.append(stream, [0, 1].map((n) => ({ kind: 'coin', data: { n } })));
    const before = await warpEvents();
    const socket = new WebSocket(`ws://127.0.0.1:${port}/mainnet/v1/warp/${stream}/ws?mode=resume`, { headers: { 'x-api-key': t.adminKey } });
    const received: string[] = [];
    socket.on('message', (raw) => {
      const message = JSON.parse(String(raw)) as { id?: string };
      if (message.id !== undefined) received.push(message.id);
    });
    await expect.poll(() => received).toEqual([first, second]);
    // Acknowledge the first twice, and ids that were never sent.
    for (const id of [first, first, '999999999999999-0', 'not-an-id']) socket.send(JSON.stringify({ type: 'ack', id }));
    await expect.poll(warpEvents).toBe(before + 1);
    socket.close();
    await new Promise((resolve) => socket.once('close', resolve));
    expect(await warpEvents()).toBe(before + 1);
    // The second event was never acknowledged: still pending for a resume.
    expect(await engine.log.readPending(stream!, undefined, 10)).toEqual([expect.objectContaining({ id: second })]);
  });

  it('events a resumed client acknowledges with lastEventId count as delivered', async () => {
    const created = await call(t, 'POST', '/v1/streams', { key: t.adminKey, body: { name: 's2', type: 'coin', filters: { coinTypes: ['0x2::sui::SUI'] } } });
    const stream = (created.body.data as { id: string }).id;
    await engine.log.append(stream, [0, 1, 2].map((n) => ({ kind: 'coin', data: { n } })));
    const before = await warpEvents();
    const first = await session(stream, 'mode=resume', 3, () => false);
    await expect.poll(warpEvents).toBe(before);
    // The client says it has everything through event 1: two delivered, then event 2 again.
    expect((await session(stream, `lastEventId=${first[1]!.id}`, 1, () => true)).map((event) => event.n)).toEqual([2]);
    await expect.poll(warpEvents).toBe(before + 3);
    expect(await consumed()).toBe(await usageCredits());
  });
});
