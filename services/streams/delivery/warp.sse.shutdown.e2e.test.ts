import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../core/index.js';
import { createTestApp, type TestApp } from '../../../test/support/test-app.js';
import { call } from '../../../test/support/management-calls.js';
import { MemoryStreamLog } from '../log/stream-log.memory.js';
import { MemoryStreamLease, type StreamLease } from './stream-lease.js';

/**
 * SIGTERM (the app's close) with a Warp SSE connection open. An SSE response never ends by
 * itself, and the server's close waits for every response: before, the close waited for the
 * client to leave, so `suigw streams` (and `suigw dev`) never stopped while a client was
 * connected, and Kubernetes killed it at the end of the grace period, its last usage unflushed.
 * Now the close ends every SSE response (EventSource reconnects elsewhere with Last-Event-ID;
 * what it was sent in the redelivery window comes again) and releases its stream's lease.
 */
describe('Warp SSE connection open when the app closes', () => {
  const clock = new ManualClock();
  const memory = new MemoryStreamLease(clock);
  const released: string[] = [];
  const lease: StreamLease = {
    acquire: (streamId, token) => memory.acquire(streamId, token),
    renew: (streamId, token) => memory.renew(streamId, token),
    release: async (streamId, token) => {
      released.push(streamId);
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
  afterAll(async () => t.db.drop());

  it('the close ends the SSE response, releases the lease and completes', async () => {
    const response = await fetch(`http://127.0.0.1:${port}/mainnet/v1/warp/${streamId}/stream`, { headers: { 'x-api-key': t.adminKey } });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('\n\n')) text += new TextDecoder().decode((await reader.read()).value);
    expect(text.split('\n')[0]).toBe('event: connected');

    // Without the fix this never resolves (the test times out): the response is still open.
    await t.close();
    let done = false;
    while (!done) done = (await reader.read()).done;
    expect(released).toEqual([streamId]);
  }, 20_000);
});
