import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ManualClock } from '../../core/index.js';
import { PLANS } from '../../plans/index.js';
import { createTestApp, type TestApp } from '../../../test/support/test-app.js';
import { call, createKeyVia } from '../../../test/support/management-calls.js';
import { WARP_ENGINES, type WarpEngine } from '../../../test/support/warp-engines.js';
import { BUFFER_MAX_AGE_MS, BUFFER_MAX_EVENTS, type StreamLog } from '../log/stream-log.js';

interface Received { event: string; id?: string; data: unknown }

/** A ws client that records every message and resolves on close with the close code and reason. */
function connect(url: string, headers: Record<string, string> = {}) {
  const socket = new WebSocket(url, { headers });
  const messages: Received[] = [];
  const listeners = new Set<(m: Received) => void>();
  socket.on('message', (raw) => {
    const message = JSON.parse(String(raw)) as Received;
    messages.push(message);
    for (const listener of listeners) listener(message);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
  const opened = new Promise<void>((resolve, reject) => {
    socket.on('open', () => resolve());
    socket.on('error', reject);
    socket.on('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
  });
  return { socket, messages, closed, opened, onMessage: (listener: (m: Received) => void) => listeners.add(listener) };
}

// Redis Streams is the production engine (issue 10); the in-process log is `suigw dev`'s.
describe.each(WARP_ENGINES)('Warp WebSocket /v1/warp/{id}/ws (%s log)', (_engine, openEngine) => {
  let t: TestApp;
  let engine: WarpEngine;
  let log: StreamLog;
  let clock: ManualClock;
  let base: string;
  let streamId: string;
  const createStream = async () => {
    const created = await call(t, 'POST', '/v1/streams', { key: t.adminKey, body: { name: 's', type: 'coin', filters: { coinTypes: ['0x2::sui::SUI'] } } });
    return (created.body.data as { id: string }).id;
  };
  beforeAll(async () => {
    // The log's clock is the app's manual clock: the buffer caps move only when a test moves it.
    clock = new ManualClock();
    engine = await openEngine(clock);
    log = engine.log;
    t = await createTestApp({ tier: 'enterprise', extra: { clock, warp: engine } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `ws://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/mainnet/v1/warp`;
    streamId = await createStream();
  });
  afterAll(async () => {
    await t.close();
    await engine.close();
  });

  const appendTo = (stream: string, from: number, n: number) => log.append(stream, Array.from({ length: n }, (_, i) => ({ kind: 'coin' as const, data: { n: from + i } })));
  const append = (from: number, n: number) => appendTo(streamId, from, n);

  /** Resumes `stream`, acking everything, until `expected` events arrived; returns their numbers. */
  async function drain(stream: string, expected: number): Promise<number[]> {
    const client = connect(`${base}/${stream}/ws?mode=resume`, { 'x-api-key': t.adminKey });
    client.onMessage((message) => {
      if (message.id !== undefined) client.socket.send(JSON.stringify({ type: 'ack', id: message.id }));
    });
    const events = () => client.messages.filter((m) => m.id !== undefined);
    await expect.poll(() => events().length, { timeout: 20_000 }).toBe(expected);
    client.socket.close();
    await client.closed;
    return events().map((m) => (m.data as { n: number }).n);
  }

  it('connected first, then one STREAM_ALREADY_CONNECTED error for a second connection; the key may ride in api_key', async () => {
    const first = connect(`${base}/${streamId}/ws?api_key=${t.adminKey}`);
    await first.opened;
    await expect.poll(() => first.messages[0]?.event).toBe('connected');
    expect(first.messages[0]!.data).toMatchObject({ subscriptionId: streamId, subscriptionType: 'coin', protocol: 'websocket' });
    const second = connect(`${base}/${streamId}/ws`, { 'x-api-key': t.adminKey });
    expect(await second.closed).toEqual({ code: 4009, reason: 'STREAM_ALREADY_CONNECTED' });
    expect(second.messages).toEqual([{ event: 'error', data: { code: 'STREAM_ALREADY_CONNECTED', message: 'The stream has an active connection.' } }]);
    first.socket.close();
    await first.closed;
  });

  it('the 101 of the upgrade carries the X-RateLimit-* and X-Svc-Credit-* headers, as every metered answer (spec: Limits)', async () => {
    const stream = await createStream();
    const socket = new WebSocket(`${base}/${stream}/ws`, { headers: { 'x-api-key': t.adminKey } });
    const upgrade = await new Promise<IncomingMessage>((resolve, reject) => {
      socket.once('upgrade', resolve);
      socket.once('error', reject);
    });
    expect(upgrade.statusCode).toBe(101);
    expect(upgrade.headers['x-ratelimit-limit']).toBe(String(PLANS.enterprise.orgRps));
    expect(upgrade.headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
    expect(upgrade.headers['x-ratelimit-reset']).toMatch(/^\d+$/);
    expect(upgrade.headers['x-svc-credit-remaining']).toMatch(/^-?\d+$/);
    expect(upgrade.headers['x-svc-credit-replenish-date']).toEqual(expect.any(String));
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.close();
    await closed;
  });

  it('closes 4003 for a key without the streams scope; 401 without a key', async () => {
    const key = await createKeyVia(t, { scopes: ['data'] });
    const refused = connect(`${base}/${streamId}/ws`, { 'x-api-key': key.apiKey });
    refused.socket.on('error', () => undefined);
    expect(await refused.closed).toEqual({ code: 4003, reason: 'INSUFFICIENT_SCOPE' });
    const anonymous = connect(`${base}/${streamId}/ws`);
    await expect(anonymous.opened).rejects.toThrow('HTTP 401');
  });

  it('another organization’s or an unknown stream: error STREAM_NOT_FOUND, close 4004', async () => {
    const unknown = connect(`${base}/str_nope/ws`, { 'x-api-key': t.adminKey });
    expect(await unknown.closed).toEqual({ code: 4004, reason: 'STREAM_NOT_FOUND' });
  });

  it('a stream deleted while connected: error STREAM_NOT_FOUND, close 4004 (it stayed open, charged by the minute)', async () => {
    const stream = await createStream();
    const client = connect(`${base}/${stream}/ws`, { 'x-api-key': t.adminKey });
    await expect.poll(() => client.messages[0]?.event).toBe('connected');
    expect((await call(t, 'DELETE', `/v1/streams/${stream}`, { key: t.adminKey })).status).toBe(200);
    expect(await client.closed).toEqual({ code: 4004, reason: 'STREAM_NOT_FOUND' });
    expect(client.messages.at(-1)).toEqual({ event: 'error', data: { code: 'STREAM_NOT_FOUND', message: 'Stream not found' } });
  });

  it('live mode discards the buffer; resume replays it', async () => {
    await append(0, 3);
    const live = connect(`${base}/${streamId}/ws`, { 'x-api-key': t.adminKey });
    await live.opened;
    await expect.poll(() => live.messages.length).toBe(1);
    await append(3, 1);
    await expect.poll(() => live.messages.map((m) => (m.data as { n?: number }).n)).toEqual([undefined, 3]);
    live.socket.close();
    await live.closed;
    await append(4, 2);
    const resumed = connect(`${base}/${streamId}/ws?mode=resume`, { 'x-api-key': t.adminKey });
    // 3 was never acked: redelivered with the buffered 4 and 5.
    await expect.poll(() => resumed.messages.map((m) => (m.data as { n?: number }).n)).toEqual([undefined, 3, 4, 5]);
    for (const m of resumed.messages.slice(1)) resumed.socket.send(JSON.stringify({ type: 'ack', id: m.id }));
    resumed.socket.close();
    await resumed.closed;
  });

  it('exactly once: 10,000 events while the client disconnects and resumes at random; acked = produced, in order, no duplicates', async () => {
    const TOTAL = 10_000;
    const produced: string[] = [];
    const acked: string[] = [];
    let next = 0;
    let seed = 42;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    let sessions = 0;
    while (acked.length < TOTAL) {
      sessions += 1;
      const client = connect(`${base}/${streamId}/ws?mode=resume`, { 'x-api-key': t.adminKey });
      let open = true;
      const quitAfter = Math.floor(random() * 1_500) + 1;
      let ackedHere = 0;
      const finished = new Promise<void>((resolve) => {
        client.onMessage((message) => {
          if (!open || message.id === undefined) return;
          acked.push(message.id);
          client.socket.send(JSON.stringify({ type: 'ack', id: message.id }));
          ackedHere += 1;
          if (ackedHere >= quitAfter || acked.length >= TOTAL) {
            open = false;
            client.socket.close();
            resolve();
          }
        });
        void client.closed.then(() => resolve());
      });
      await client.opened;
      // Produce while connected, never more than the buffer holds ahead of the acks.
      while (open && next < TOTAL) {
        const batch = Math.min(TOTAL - next, 250, 1_500 - (produced.length - acked.length));
        if (batch <= 0) break;
        produced.push(...(await append(next, batch)));
        next += batch;
        await new Promise((resolve) => setImmediate(resolve));
      }
      await finished;
      await client.closed;
    }
    expect(sessions).toBeGreaterThan(5);
    expect(new Set(acked).size).toBe(acked.length);
    expect(acked).toEqual(produced);
  }, 120_000);

  it(`a resume after ${BUFFER_MAX_EVENTS + 500} events while disconnected delivers exactly the last ${BUFFER_MAX_EVENTS}`, async () => {
    const stream = await createStream();
    for (let batch = 0; batch < 5; batch += 1) {
      await appendTo(stream, batch * 500, 500);
      clock.advance(1);
    }
    const numbers = await drain(stream, BUFFER_MAX_EVENTS);
    expect(numbers).toEqual(Array.from({ length: BUFFER_MAX_EVENTS }, (_, i) => 500 + i));
  }, 60_000);

  it('a resume delivers events exactly 30 minutes old on the injected clock, and none older', async () => {
    const stream = await createStream();
    await appendTo(stream, 0, 1);
    clock.advance(1);
    await appendTo(stream, 1, 1);
    // Event 0 is now 30 minutes and 1 ms old, event 1 exactly 30 minutes.
    clock.advance(BUFFER_MAX_AGE_MS);
    expect(await drain(stream, 1)).toEqual([1]);
  });
});
