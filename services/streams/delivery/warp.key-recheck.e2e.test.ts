import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { KEY_RECHECK_MS } from '../../pipeline/index.js';
import { call, createKeyVia } from '../../../test/support/management-calls.js';
import { startWarpApp, type WarpApp } from '../../../test/support/warp-app.js';

/**
 * An open connection is not a pass: the key is checked again while the connection lives, so a
 * key disabled through the management API is refused on its open Warp sockets and SSE streams
 * too (an `error` message with the spec's code, then the error table's close code), at the
 * next check (services/pipeline/key-recheck.ts).
 */
describe('Warp: a key disabled while its connection is open', () => {
  let warp: WarpApp;
  let t: WarpApp['t'];
  beforeAll(async () => {
    warp = await startWarpApp();
    t = warp.t;
  });
  afterAll(async () => warp.close());

  it('WebSocket: error API_KEY_DISABLED, then close 4001', async () => {
    const key = await createKeyVia(t, { name: 'streamer', scopes: ['streams', 'manage'] });
    const created = await call(t, 'POST', '/v1/streams', { key: t.adminKey, body: { name: 's', type: 'coin', filters: { coinTypes: ['0x2::sui::SUI'] } } });
    const stream = (created.body.data as { id: string }).id;
    const socket = new WebSocket(`ws://127.0.0.1:${warp.port}/mainnet/v1/warp/${stream}/ws`, { headers: { 'x-api-key': key.apiKey } });
    const messages: { event: string; data: unknown }[] = [];
    socket.on('message', (raw) => messages.push(JSON.parse(String(raw))));
    const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
    await expect.poll(() => messages.map((message) => message.event), { timeout: 5_000 }).toEqual(['connected']);
    expect((await call(t, 'DELETE', `/v1/keys/${key.id}`, { key: t.adminKey })).status).toBe(200);
    // The next check is due KEY_RECHECK_MS later on the gateway's clock.
    warp.clock.advance(KEY_RECHECK_MS);
    expect(await closed).toEqual({ code: 4001, reason: 'API_KEY_DISABLED' });
    expect(messages.at(-1)).toEqual({ event: 'error', data: { code: 'API_KEY_DISABLED', message: expect.any(String) } });
  });
});
