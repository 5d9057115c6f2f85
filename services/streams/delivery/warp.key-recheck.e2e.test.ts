import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ManualClock } from '../../core/index.js';
import { call, createKeyVia } from '../../../test/support/management-calls.js';
import { createTestApp, type TestApp } from '../../../test/support/test-app.js';
import { WARP_ENGINES, type WarpEngine } from '../../../test/support/warp-engines.js';

/**
 * An open connection is not a pass: the key is checked again while the connection lives, so a
 * key disabled through the management API is refused on its open Warp sockets and SSE streams
 * too (an `error` message with the spec's code, then the error table's close code).
 */
describe('Warp: a key disabled while its connection is open', () => {
  let t: TestApp;
  let engine: WarpEngine;
  let port: number;
  beforeAll(async () => {
    const clock = new ManualClock();
    engine = await WARP_ENGINES.find(([name]) => name === 'memory')![1](clock);
    t = await createTestApp({ tier: 'team', extra: { clock, warp: engine } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await t.close();
    await engine.close();
  });

  it('WebSocket: error API_KEY_DISABLED, then close 4001', async () => {
    const key = await createKeyVia(t, { name: 'streamer', scopes: ['streams', 'manage'] });
    const created = await call(t, 'POST', '/v1/streams', { key: t.adminKey, body: { name: 's', type: 'coin', filters: { coinTypes: ['0x2::sui::SUI'] } } });
    const stream = (created.body.data as { id: string }).id;
    const socket = new WebSocket(`ws://127.0.0.1:${port}/mainnet/v1/warp/${stream}/ws`, { headers: { 'x-api-key': key.apiKey } });
    const messages: { event: string; data: unknown }[] = [];
    socket.on('message', (raw) => messages.push(JSON.parse(String(raw))));
    const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
    await expect.poll(() => messages.map((message) => message.event), { timeout: 5_000 }).toEqual(['connected']);
    expect((await call(t, 'DELETE', `/v1/keys/${key.id}`, { key: t.adminKey })).status).toBe(200);
    expect(await closed).toEqual({ code: 4001, reason: 'API_KEY_DISABLED' });
    expect(messages.at(-1)).toEqual({ event: 'error', data: { code: 'API_KEY_DISABLED', message: expect.any(String) } });
  });
});
