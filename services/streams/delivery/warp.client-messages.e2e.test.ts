import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createTestApp, type TestApp } from '../../../test/support/test-app.js';
import { call } from '../../../test/support/management-calls.js';
import { ManualClock } from '../../core/index.js';
import { MemoryStreamLog } from '../log/stream-log.memory.js';
import { MemoryStreamLease } from './stream-lease.js';

interface Received { event: string; id?: string; data: unknown }

/**
 * What a client sends on a Warp WebSocket is read as an ack or ignored. Before, any JSON that is
 * not an object (`null`, a number, a string, an array) reached a property read that threw outside
 * any handler and ended the whole process, every other connection with it.
 */
describe('Warp WebSocket client messages', () => {
  const clock = new ManualClock();
  const log = new MemoryStreamLog(clock);
  let t: TestApp;
  let url: string;
  let streamId: string;

  beforeAll(async () => {
    t = await createTestApp({ tier: 'team', extra: { clock, warp: { log, lease: new MemoryStreamLease(clock) } } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const created = await call(t, 'POST', '/v1/streams', { key: t.adminKey, body: { name: 's', type: 'coin', filters: { coinTypes: ['0x2::sui::SUI'] } } });
    streamId = (created.body.data as { id: string }).id;
    url = `ws://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/mainnet/v1/warp/${streamId}/ws`;
  });
  afterAll(async () => t.close());

  it('null, a number, a string, an array, bad JSON and malformed acks are ignored: the connection goes on and a real ack delivers', async () => {
    const socket = new WebSocket(url, { headers: { 'x-api-key': t.adminKey } });
    const messages: Received[] = [];
    socket.on('message', (raw) => messages.push(JSON.parse(String(raw)) as Received));
    let closed: number | undefined;
    socket.on('close', (code) => { closed = code; });
    await expect.poll(() => messages.map((m) => m.event)).toEqual(['connected']);

    for (const frame of ['null', '42', '"ack"', '[]', '[{"type":"ack"}]', 'true', '{"type":"ack"}', '{"type":"ack","id":7}', '{"type":"nack","id":"x"}', '{"type":']) socket.send(frame);
    await log.append(streamId, [{ kind: 'coin', data: { n: 0 } }]);
    await expect.poll(() => messages.map((m) => m.event)).toEqual(['connected', 'coin']);
    expect((await log.readPending(streamId, undefined, 10)).map((e) => e.data)).toEqual([{ n: 0 }]);

    socket.send(JSON.stringify({ type: 'ack', id: messages[1]!.id }));
    await expect.poll(async () => (await log.readPending(streamId, undefined, 10)).length).toBe(0);
    expect(closed).toBeUndefined();
    expect(socket.readyState).toBe(WebSocket.OPEN);
    socket.close();
    await expect.poll(() => closed).toBe(1005);
  });
});
