import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createTestApp, type TestApp } from '../../../test/support/test-app.js';
import { call, createKeyVia } from '../../../test/support/management-calls.js';
import { ManualClock } from '../../core/index.js';
import { MemoryStreamLog } from '../log/stream-log.memory.js';
import { MemoryStreamLease } from './stream-lease.js';

interface Outcome { status?: number; close?: { code: number; reason: string } }

/**
 * A refused Warp connect costs what the same refusal costs a REST request (spec: Limits; the
 * rules of docs/metering.md): a refusal the route answers (a 4xx: STREAM_NOT_FOUND,
 * STREAM_ALREADY_CONNECTED, STREAM_PAUSED by plan) is charged the connect's 1 credit; a key's
 * cap (429 RATE_LIMIT_EXCEEDED), a refusal of the key's scope and a failure of the service (5xx,
 * warp.start-failure.e2e.test.ts) nothing.
 */
describe('what a refused Warp connect costs', () => {
  const clock = new ManualClock();
  let t: TestApp;
  let base: string;
  const credits = async () => Number((await call(t, 'GET', '/v1/account', { key: t.adminKey })).headers['x-svc-credit-remaining']);
  const createStream = async (name: string) => {
    const created = await call(t, 'POST', '/v1/streams', { key: t.adminKey, body: { name, type: 'coin', filters: { coinTypes: ['0x2::sui::SUI'] } } });
    expect(created.status).toBe(201);
    return (created.body.data as { id: string }).id;
  };
  /** Connects and waits for the close (or the upgrade's HTTP refusal). */
  const connect = (url: string, key: string, keepOpen = false) => new Promise<Outcome & { socket: WebSocket }>((resolve) => {
    const socket = new WebSocket(url, { headers: { 'x-api-key': key } });
    socket.on('unexpected-response', (_request, response) => resolve({ status: response.statusCode, socket }));
    socket.on('message', (raw) => {
      if (keepOpen && (JSON.parse(String(raw)) as { event: string }).event === 'connected') resolve({ socket });
    });
    socket.on('close', (code, reason) => resolve({ close: { code, reason: String(reason) }, socket }));
    socket.on('error', () => undefined);
  });

  beforeAll(async () => {
    t = await createTestApp({ tier: 'team', extra: { clock, warp: { log: new MemoryStreamLog(clock), lease: new MemoryStreamLease(clock) } } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `ws://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/mainnet/v1/warp`;
  });
  afterAll(async () => t.close());

  it('STREAM_NOT_FOUND (close 4004) costs 1 credit, as a REST 404', async () => {
    const before = await credits();
    expect((await connect(`${base}/unknown/ws`, t.adminKey)).close).toEqual({ code: 4004, reason: 'STREAM_NOT_FOUND' });
    expect(await credits()).toBe(before - 1);
  });

  it('STREAM_ALREADY_CONNECTED (close 4009) costs 1 credit, as a REST 409; the open connection its connect and first minute', async () => {
    const stream = await createStream('taken');
    const before = await credits();
    const open = await connect(`${base}/${stream}/ws`, t.adminKey, true);
    expect(await credits()).toBe(before - 2);
    expect((await connect(`${base}/${stream}/ws`, t.adminKey)).close).toEqual({ code: 4009, reason: 'STREAM_ALREADY_CONNECTED' });
    expect(await credits()).toBe(before - 3);
    open.socket.close();
  });

  it('a connect over the key’s cap (429 RATE_LIMIT_EXCEEDED on the upgrade) costs nothing', async () => {
    const stream = await createStream('capped');
    const key = await createKeyVia(t, { scopes: ['streams'], rateLimit: { perKeyRps: 1 } });
    const before = await credits();
    const open = await connect(`${base}/${stream}/ws`, key.apiKey, true);
    expect(await credits()).toBe(before - 2);
    expect((await connect(`${base}/${stream}/ws`, key.apiKey)).status).toBe(429);
    expect(await credits()).toBe(before - 2);
    open.socket.close();
  });

  it('a key without the streams scope (close 4003 INSUFFICIENT_SCOPE) costs nothing', async () => {
    const stream = await createStream('scoped');
    const key = await createKeyVia(t, { scopes: ['data'] });
    const before = await credits();
    expect((await connect(`${base}/${stream}/ws`, key.apiKey)).close).toEqual({ code: 4003, reason: 'INSUFFICIENT_SCOPE' });
    expect(await credits()).toBe(before);
  });
});
