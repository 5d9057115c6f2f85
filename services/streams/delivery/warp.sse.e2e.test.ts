import type { AddressInfo } from 'node:net';
import { EventSource } from 'eventsource';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, Metrics } from '../../core/index.js';
import { createTestApp, type TestApp } from '../../../test/support/test-app.js';
import { call } from '../../../test/support/management-calls.js';
import { WARP_ENGINES, type WarpEngine } from '../../../test/support/warp-engines.js';
import type { StreamLog } from '../log/stream-log.js';
import { SSE_REDELIVERY_MS } from './delivery-session.js';

interface Seen { type: string; id: string; data: Record<string, unknown> }

// Redis Streams is the production engine (issue 10); the in-process log is `suigw dev`'s.
describe.each(WARP_ENGINES)('Warp SSE /v1/warp/{id}/stream (eventsource client, %s log)', (_engine, openEngine) => {
  let t: TestApp;
  let engine: WarpEngine;
  let log: StreamLog;
  let clock: ManualClock;
  let url: string;
  let streamId: string;
  const metrics = new Metrics({ defaultMetrics: false });
  beforeAll(async () => {
    clock = new ManualClock();
    engine = await openEngine(clock);
    log = engine.log;
    t = await createTestApp({ tier: 'enterprise', extra: { clock, warp: engine, metrics } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const created = await call(t, 'POST', '/v1/streams', { key: t.adminKey, body: { name: 's', type: 'object', filters: { objectIds: ['0x5'] } } });
    streamId = (created.body.data as { id: string }).id;
    url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/mainnet/v1/warp/${streamId}/stream`;
  });
  afterAll(async () => {
    await t.close();
    await engine.close();
  });

  const append = (from: number, n: number) => log.append(streamId, Array.from({ length: n }, (_, i) => ({ kind: 'object' as const, data: { n: from + i } })));

  function subscribe(query: string, headers: Record<string, string> = {}) {
    const seen: Seen[] = [];
    const source = new EventSource(`${url}${query}`, {
      fetch: (input, init) => fetch(input, { ...init, headers: { ...init.headers, 'x-api-key': t.adminKey, ...headers } }),
    });
    for (const type of ['connected', 'object', 'error']) {
      source.addEventListener(type, (event) => {
        // The client's own connection errors (a reconnect attempt) are `error` events without data.
        if (typeof event.data !== 'string') return;
        seen.push({ type, id: event.lastEventId, data: JSON.parse(event.data) as Record<string, unknown> });
      });
    }
    return { source, seen, numbers: () => seen.filter((s) => s.type === 'object').map((s) => s.data['n']) };
  }

  it('connected, then events with ids; after an ungraceful disconnect the last 30 s are redelivered (at least once)', async () => {
    const first = subscribe('?mode=resume');
    await expect.poll(() => first.seen[0]?.type).toBe('connected');
    expect(first.seen[0]!.data).toMatchObject({ subscriptionId: streamId, subscriptionType: 'object', protocol: 'sse' });
    await append(0, 5);
    await expect.poll(() => first.numbers()).toEqual([0, 1, 2, 3, 4]);
    // Written more than the redelivery window ago: acknowledged, never sent again.
    clock.advance(SSE_REDELIVERY_MS + 1);
    await expect.poll(async () => (await log.readPending(streamId, undefined, 10)).length, { timeout: 5_000 }).toBe(0);
    await append(5, 3);
    await expect.poll(() => first.numbers()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    first.source.close();

    const again = subscribe('?mode=resume');
    await expect.poll(() => again.numbers()).toEqual([5, 6, 7]);
    again.source.close();
  });

  it('resumes after the Last-Event-ID it is given; a live connection starts from now', async () => {
    const ids = await append(8, 3);
    const resumed = subscribe('', { 'last-event-id': ids[0]! });
    await expect.poll(() => resumed.numbers()).toEqual([9, 10]);
    expect(resumed.seen.filter((s) => s.type === 'object').map((s) => s.id)).toEqual(ids.slice(1));
    resumed.source.close();
    await append(11, 2);
    const live = subscribe('');
    await expect.poll(() => live.seen[0]?.type).toBe('connected');
    await append(13, 1);
    await expect.poll(() => live.numbers()).toEqual([13]);
    live.source.close();
  });

  it('a Last-Event-ID that is not ours resumes without acknowledging anything: the buffer is replayed, never discarded', async () => {
    await append(14, 2);
    const resumed = subscribe('', { 'last-event-id': '1795820476281-0x' });
    // Events still in the redelivery window may come again first (at least once); 14 and 15 must come.
    await expect.poll(() => resumed.numbers().filter((n) => Number(n) >= 14)).toEqual([14, 15]);
    resumed.source.close();
  });

  it('counts in the request metrics as protocol "warp", not as a management call', async () => {
    const refused = await fetch(`${url}?mode=sometimes`, { headers: { 'x-api-key': t.adminKey } });
    expect(refused.status).toBe(400);
    const lines = (await metrics.exposition()).body.split('\n').filter((line) => line.startsWith('suigw_requests_total{') && line.includes('/warp/'));
    expect(lines).toEqual(expect.arrayContaining([
      expect.stringMatching(/^suigw_requests_total\{protocol="warp",route="\/mainnet\/v1\/warp\/:id\/stream",method="GET",status="400"\} 1$/),
    ]));
    for (const line of lines) expect(line).toMatch(/^suigw_requests_total\{protocol="warp",/);
  });

  it('counts the open connection in suigw_warp_connections{network, protocol} while it lasts; a refused connect is not one', async () => {
    const open = async () => (await metrics.exposition()).body.split('\n').find((line) => line.startsWith('suigw_warp_connections{network="mainnet",protocol="sse"}'));
    const holder = subscribe('');
    await expect.poll(() => holder.seen[0]?.type).toBe('connected');
    await expect.poll(open).toBe('suigw_warp_connections{network="mainnet",protocol="sse"} 1');
    // A second connect is refused (STREAM_ALREADY_CONNECTED): still one open.
    expect(await (await fetch(url, { headers: { 'x-api-key': t.adminKey } })).text()).toContain('STREAM_ALREADY_CONNECTED');
    expect(await open()).toBe('suigw_warp_connections{network="mainnet",protocol="sse"} 1');
    holder.source.close();
    await expect.poll(open).toBe('suigw_warp_connections{network="mainnet",protocol="sse"} 0');
  });

  it('a second SSE connection gets error STREAM_ALREADY_CONNECTED', async () => {
    const holder = subscribe('');
    await expect.poll(() => holder.seen[0]?.type).toBe('connected');
    const response = await fetch(url, { headers: { 'x-api-key': t.adminKey } });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('event: error\ndata: {"code":"STREAM_ALREADY_CONNECTED","message":"The stream has an active connection."}\n\n');
    holder.source.close();
  });
});
