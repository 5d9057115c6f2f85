import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWarpApp, type WarpApp } from '../../test/support/warp-app.js';
import { call } from '../../test/support/management-calls.js';

/**
 * A WebSocket route asked without an upgrade (a plain GET or HEAD, a client that forgot the
 * `ws://` scheme) is 426 UPGRADE_REQUIRED with the standard error body and `Upgrade: websocket`
 * (RFC 9110 15.5.22). It was @fastify/websocket's own 404 with an empty body and no content
 * type: neither the spec's `{error, code}` nor a status that says what to do.
 */
describe('WebSocket routes without an upgrade', () => {
  let w: WarpApp;
  let streamId: string;
  beforeAll(async () => {
    w = await startWarpApp();
    const created = await call(w.t, 'POST', '/v1/streams', { key: w.t.adminKey, body: { name: 's', type: 'coin', filters: { coinTypes: ['0x2::sui::SUI'] } } });
    streamId = (created.body.data as { id: string }).id;
  });
  afterAll(async () => w.close());

  const paths = () => [`/mainnet/v1/warp/${streamId}/ws`, '/mainnet/v1/jsonrpc'];

  it('GET is 426 UPGRADE_REQUIRED with the standard body and Upgrade: websocket', async () => {
    for (const url of paths()) {
      const response = await w.t.app.inject({ method: 'GET', url, headers: { 'x-api-key': w.t.adminKey } });
      expect({ url, status: response.statusCode }).toEqual({ url, status: 426 });
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(response.headers.upgrade).toBe('websocket');
      expect(response.json()).toEqual({
        error: 'Upgrade required', code: 'UPGRADE_REQUIRED', requestId: expect.any(String),
        message: 'This address serves WebSocket connections only: connect with a WebSocket client (GET with Upgrade: websocket).',
      });
    }
  });

  it('HEAD is 426 as well, with no body', async () => {
    for (const url of paths()) {
      const response = await w.t.app.inject({ method: 'HEAD', url, headers: { 'x-api-key': w.t.adminKey } });
      expect({ url, status: response.statusCode, upgrade: response.headers.upgrade, body: response.body }).toEqual({ url, status: 426, upgrade: 'websocket', body: '' });
    }
  });

  it('over a real connection too, which stays usable for the next request', async () => {
    const url = `http://127.0.0.1:${w.port}${paths()[0]}`;
    const first = await fetch(url, { headers: { 'x-api-key': w.t.adminKey } });
    expect(first.status).toBe(426);
    expect(((await first.json()) as { code: string }).code).toBe('UPGRADE_REQUIRED');
    const next = await fetch(`http://127.0.0.1:${w.port}/mainnet/v1/auth/me`, { headers: { 'x-api-key': w.t.adminKey } });
    expect(next.status).toBe(200);
  });

  it('the key is still checked first: without one it is 401', async () => {
    for (const url of paths()) {
      const response = await w.t.app.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(401);
    }
  });
});
