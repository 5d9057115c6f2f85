import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createTestApp, type TestApp } from '../../../test/support/test-app.js';
import { call } from '../../../test/support/management-calls.js';
import { HEARTBEAT_MS, ManualClock } from '../../core/index.js';
import { MemoryStreamLog } from '../log/stream-log.memory.js';
import { MemoryStreamLease } from './stream-lease.js';

interface Client { socket: WebSocket; messages: { event: string; data: unknown }[]; pings: number; closed: { code: number } | undefined }

/**
 * A client that vanished without closing (machine asleep, network gone) answers nothing. Before,
 * nothing was ever sent on a quiet stream, so its connection stayed open for good: the stream
 * refused every reconnect with STREAM_ALREADY_CONNECTED and the dead connection was charged its
 * minutes. Now every HEARTBEAT_MS (on the clock) a WebSocket is pinged and ended when the
 * previous ping went unanswered; an SSE response gets a comment line.
 */
describe('Warp heartbeats', () => {
  const clock = new ManualClock();
  let t: TestApp;
  let base: string;
  let streamId: string;

  beforeAll(async () => {
    t = await createTestApp({ tier: 'team', extra: { clock, warp: { log: new MemoryStreamLog(clock), lease: new MemoryStreamLease(clock) } } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `127.0.0.1:${(t.app.server.address() as AddressInfo).port}/mainnet/v1/warp`;
    const created = await call(t, 'POST', '/v1/streams', { key: t.adminKey, body: { name: 'quiet', type: 'coin', filters: { coinTypes: ['0x2::sui::SUI'] } } });
    streamId = (created.body.data as { id: string }).id;
  });
  afterAll(async () => t.close());

  async function connect(autoPong: boolean): Promise<Client> {
    const socket = new WebSocket(`ws://${base}/${streamId}/ws`, { headers: { 'x-api-key': t.adminKey }, autoPong });
    const client: Client = { socket, messages: [], pings: 0, closed: undefined };
    socket.on('message', (raw) => client.messages.push(JSON.parse(String(raw)) as { event: string; data: unknown }));
    socket.on('ping', () => { client.pings += 1; });
    socket.on('close', (code) => { client.closed = { code }; });
    await expect.poll(() => client.messages.length, { timeout: 10_000 }).toBe(1);
    return client;
  }

  it('a WebSocket that answers no ping is ended after two heartbeats; the stream takes a new connection', async () => {
    const gone = await connect(false);
    expect(gone.messages[0]!.event).toBe('connected');
    clock.advance(HEARTBEAT_MS);
    await expect.poll(() => gone.pings, { timeout: 10_000 }).toBe(1);
    expect(gone.closed).toBeUndefined();
    clock.advance(HEARTBEAT_MS);
    await expect.poll(() => gone.closed, { timeout: 10_000 }).toEqual({ code: 1006 });

    const next = await connect(true);
    expect(next.messages[0]!.event).toBe('connected');
    next.socket.close();
    await expect.poll(() => next.closed, { timeout: 10_000 }).toBeDefined();
  });

  it('a WebSocket that answers its pings stays open', async () => {
    const alive = await connect(true);
    for (let beat = 1; beat <= 3; beat += 1) {
      clock.advance(HEARTBEAT_MS);
      await expect.poll(() => alive.pings, { timeout: 10_000 }).toBe(beat);
      // The server has read our pong once it answers a ping sent after it (frames arrive in order).
      await new Promise((resolve) => {
        alive.socket.once('pong', resolve);
        alive.socket.ping();
      });
    }
    expect(alive.closed).toBeUndefined();
    expect(alive.socket.readyState).toBe(WebSocket.OPEN);
    alive.socket.close();
    await expect.poll(() => alive.closed, { timeout: 10_000 }).toBeDefined();
  });

  it('an SSE response gets a comment line every heartbeat', async () => {
    const controller = new AbortController();
    const response = await fetch(`http://${base}/${streamId}/stream`, { headers: { 'x-api-key': t.adminKey }, signal: controller.signal });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    let text = '';
    const reading = (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        text += Buffer.from(value).toString('utf8');
      }
    })().catch(() => undefined);
    await expect.poll(() => text.includes('event: connected'), { timeout: 10_000 }).toBe(true);
    expect(text).not.toContain(': heartbeat');
    clock.advance(HEARTBEAT_MS);
    await expect.poll(() => text.endsWith(': heartbeat\n\n'), { timeout: 10_000 }).toBe(true);
    controller.abort();
    await reading;
  });
});
