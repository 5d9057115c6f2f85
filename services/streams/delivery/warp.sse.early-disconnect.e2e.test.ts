import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../core/index.js';
import { createTestApp, type TestApp } from '../../../test/support/test-app.js';
import { call } from '../../../test/support/management-calls.js';
import { MemoryStreamLog } from '../log/stream-log.memory.js';
import { MemoryStreamLease, type StreamLease } from './stream-lease.js';

/**
 * An SSE client gone between its request and the `connected` message. Before, writing to the
 * destroyed response returned false and the write waited for a `drain` that never comes: the
 * connection never finished opening, nobody released its lease, its renewal and minute charges
 * ran for good, and every reconnect got STREAM_ALREADY_CONNECTED. Now a write to a closed
 * response settles at once and the connection is ended as any closed one.
 */
describe('Warp SSE client gone before connected', () => {
  const clock = new ManualClock();
  const memory = new MemoryStreamLease(clock);
  /** Lets a connect hold its lease until the test has dropped the client. */
  let held: Promise<void> | undefined;
  let leaseTaken: () => void = () => undefined;
  const released: string[] = [];
  const lease: StreamLease = {
    acquire: async (streamId, token) => {
      const taken = await memory.acquire(streamId, token);
      leaseTaken();
      if (held) await held;
      return taken;
    },
    renew: (streamId, token) => memory.renew(streamId, token),
    release: async (streamId, token) => {
      released.push(token);
      await memory.release(streamId, token);
    },
    connected: () => memory.connected(),
    close: () => memory.close(),
  };
  let t: TestApp;
  let port: number;
  let streamId: string;

  beforeAll(async () => {
    t = await createTestApp({ tier: 'team', extra: { clock, warp: { log: new MemoryStreamLog(clock), lease } } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
    const created = await call(t, 'POST', '/v1/streams', { key: t.adminKey, body: { name: 's', type: 'coin', filters: { coinTypes: ['0x2::sui::SUI'] } } });
    streamId = (created.body.data as { id: string }).id;
  });
  afterAll(async () => t.close());

  const serverConnections = () => new Promise<number>((resolve, reject) => t.app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))));

  it('its lease is released, and the next connection gets connected', async () => {
    let letGo!: () => void;
    held = new Promise<void>((resolve) => { letGo = resolve; });
    const taken = new Promise<void>((resolve) => { leaseTaken = resolve; });
    const client = net.connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => client.once('connect', () => resolve()));
    client.write(`GET /mainnet/v1/warp/${streamId}/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${t.adminKey}\r\n\r\n`);
    await taken;
    client.destroy();
    await expect.poll(serverConnections, { timeout: 10_000 }).toBe(0);
    held = undefined;
    letGo();
    await expect.poll(() => released.length, { timeout: 10_000 }).toBe(1);

    const controller = new AbortController();
    const response = await fetch(`http://127.0.0.1:${port}/mainnet/v1/warp/${streamId}/stream`, { headers: { 'x-api-key': t.adminKey }, signal: controller.signal });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('\n\n')) text += new TextDecoder().decode((await reader.read()).value);
    expect(text.split('\n')[0]).toBe('event: connected');
    controller.abort();
    await expect.poll(() => released.length, { timeout: 10_000 }).toBe(2);
  });
});
