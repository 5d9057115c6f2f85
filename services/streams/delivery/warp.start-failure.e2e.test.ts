import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createTestApp, type TestApp } from '../../../test/support/test-app.js';
import { call } from '../../../test/support/management-calls.js';
import { ManualClock } from '../../core/index.js';
import { MemoryStreamLog } from '../log/stream-log.memory.js';
import { MemoryStreamLease } from './stream-lease.js';

/** A log whose next `discard` fails, as Redis does in a blip (the connection's start, live mode). */
class FlakyLog extends MemoryStreamLog {
  failNext = false;
  override async discard(streamId: string): Promise<void> {
    if (this.failNext) {
      this.failNext = false;
      throw new Error('Connection is closed.');
    }
    return super.discard(streamId);
  }
}

interface Session { messages: { event: string; data: unknown }[]; closed: Promise<{ code: number; reason: string }>; socket: WebSocket }

/**
 * The stream log fails while a connection starts, after its lease was taken: a failure of the
 * service, charged nothing (spec: Limits, 5xx are not charged). Before, the
 * connection was closed (WebSocket 1011) but its lease renewal, minute charges and deletion
 * watch kept running with nobody to stop them: the stream answered every reconnect
 * STREAM_ALREADY_CONNECTED until the process restarted; an SSE client got a 200 that never ended.
 */
describe('a Warp connection whose start fails', () => {
  const clock = new ManualClock();
  const log = new FlakyLog(clock);
  let t: TestApp;
  let base: string;
  let streamId: string;

  beforeAll(async () => {
    t = await createTestApp({ tier: 'team', extra: { clock, warp: { log, lease: new MemoryStreamLease(clock) } } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `127.0.0.1:${(t.app.server.address() as AddressInfo).port}/mainnet/v1/warp`;
    const created = await call(t, 'POST', '/v1/streams', { key: t.adminKey, body: { name: 's', type: 'coin', filters: { coinTypes: ['0x2::sui::SUI'] } } });
    streamId = (created.body.data as { id: string }).id;
  });
  afterAll(async () => t.close());

  function open(): Session {
    const socket = new WebSocket(`ws://${base}/${streamId}/ws`, { headers: { 'x-api-key': t.adminKey } });
    const messages: Session['messages'] = [];
    socket.on('message', (raw) => messages.push(JSON.parse(String(raw)) as Session['messages'][number]));
    const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
    return { messages, closed, socket };
  }

  const credits = async () => Number((await call(t, 'GET', '/v1/account', { key: t.adminKey })).headers['x-svc-credit-remaining']);

  it('WebSocket: closed 1011, charged nothing (a 5xx), and the stream is free for the next connection', async () => {
    log.failNext = true;
    const before = await credits();
    const failed = open();
    expect(await failed.closed).toEqual({ code: 1011, reason: 'INTERNAL_ERROR' });
    // Before, the connect and its first minute were charged: 2 credits for the service's own failure.
    expect(await credits()).toBe(before);

    const next = open();
    await expect.poll(() => next.messages.length, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(next.messages[0]!.event).toBe('connected');
    next.socket.close();
    await next.closed;
  });

  it('SSE: an error message INTERNAL_ERROR ends the response, charged nothing, and the stream is free for the next connection', async () => {
    log.failNext = true;
    const before = await credits();
    const response = await fetch(`http://${base}/${streamId}/stream`, { headers: { 'x-api-key': t.adminKey } });
    expect(response.status).toBe(200);
    const body = await response.text();
    expect(body.endsWith('event: error\ndata: {"code":"INTERNAL_ERROR","message":"Internal error"}\n\n')).toBe(true);
    expect(response.headers.get('x-svc-credit-remaining')).toBe(String(before));
    expect(await credits()).toBe(before);

    const next = open();
    await expect.poll(() => next.messages.length, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(next.messages[0]!.event).toBe('connected');
    next.socket.close();
    await next.closed;
  });
});
