import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../core/index.js';
import { createTestApp, type TestApp } from '../../test/support/test-app.js';
import { CONNECTION_CHECK_INTERVAL_MS, serverTimeouts } from './timeouts.js';

const HEADERS_TIMEOUT_MS = 400;
const REQUEST_TIMEOUT_MS = 800;
/** Generous: the timeout, one check interval, and a loaded two-core machine. */
const CUT_WITHIN_MS = REQUEST_TIMEOUT_MS + HEADERS_TIMEOUT_MS + 2_500;

interface Stalled {
  socket: Socket;
  /** Everything the server wrote, once it closed the connection, and when (ms after opening). */
  closed: Promise<{ received: string; afterMs: number }>;
}

/** Opens a connection, writes `bytes` and then sends nothing more. */
function stall(port: number, bytes: string): Promise<Stalled> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    let received = '';
    const socket = connect(port, '127.0.0.1');
    const closed = new Promise<{ received: string; afterMs: number }>((done) => {
      socket.on('close', () => done({ received, afterMs: Date.now() - started }));
    });
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    socket.on('error', () => undefined); // a reset is one way of being cut
    socket.once('connect', () => {
      socket.write(bytes);
      resolve({ socket, closed });
    });
    socket.once('error', reject);
  });
}

const stalledBody = (key?: string) =>
  'POST /mainnet/v1/transactions/batch HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n' +
  (key ? `x-api-key: ${key}\r\n` : '') +
  '\r\n{"digests": [';
const stalledHeaders = 'GET /mainnet/v1/chain HTTP/1.1\r\nHost: x\r\nx-api-key: svc_pat_';

describe('every phase of a connection is bounded (a real listening server, raw sockets)', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp({
      env: { SUIGW_HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS), SUIGW_HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) },
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as { port: number }).port;
  });
  afterAll(async () => t.close());

  it('a client that sends headers and stalls its body (no key) is disconnected within the request timeout', async () => {
    const { closed } = await stall(port, stalledBody());
    const { received, afterMs } = await closed;
    expect(afterMs).toBeLessThan(CUT_WITHIN_MS);
    // It was answered 401 at once (authentication runs before the body), then cut.
    expect(received).toMatch(/^HTTP\/1\.1 401 /);
  });

  it('a client with a valid key that stalls its body gets 408 REQUEST_TIMEOUT and is disconnected', async () => {
    const { closed } = await stall(port, stalledBody(t.adminKey));
    const { received, afterMs } = await closed;
    expect(afterMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 50);
    expect(afterMs).toBeLessThan(CUT_WITHIN_MS);
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
    const body = JSON.parse(received.slice(received.indexOf('\r\n\r\n') + 4)) as unknown;
    expect(body).toEqual({
      error: 'Request timeout',
      message: 'The request was not received in time; the connection is closed.',
      code: 'REQUEST_TIMEOUT',
      requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
  });

  it('a client that stalls in the middle of its headers is disconnected within the headers timeout', async () => {
    const { closed } = await stall(port, stalledHeaders);
    const { received, afterMs } = await closed;
    expect(afterMs).toBeLessThan(HEADERS_TIMEOUT_MS + 2_500);
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('250 stalled clients do not starve a normal request, and all of them are cut', async () => {
    const stalled = await Promise.all(
      Array.from({ length: 250 }, (_, i) => stall(port, i % 2 === 0 ? stalledHeaders : stalledBody(t.adminKey))),
    );
    const response = await fetch(`http://127.0.0.1:${port}/mainnet/v1/auth/me`, { headers: { 'x-api-key': t.adminKey } });
    expect(response.status).toBe(200);
    const cuts = await Promise.all(stalled.map((s) => s.closed));
    for (const { afterMs } of cuts) expect(afterMs).toBeLessThan(CUT_WITHIN_MS + 2_000);
    expect(stalled.every((s) => s.socket.destroyed)).toBe(true);
  }, 30_000);
});

describe('the shipped timeouts are the documented ones', () => {
  it('headers 10 s, whole request 30 s, idle 120 s, keep-alive 72 s, checked every second', () => {
    const config = loadConfig({});
    expect(config.http).toEqual({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, idleTimeoutMs: 120_000, keepAliveTimeoutMs: 72_000 });
    expect(CONNECTION_CHECK_INTERVAL_MS).toBe(1_000);
    expect(serverTimeouts(config.http)).toEqual({
      connectionTimeout: 120_000,
      keepAliveTimeout: 72_000,
      requestTimeout: 30_000,
      http: { headersTimeout: 10_000, requestTimeout: 30_000, connectionsCheckingInterval: 1_000 },
    });
  });

  it('the server the gateway listens with carries them', async () => {
    const t = await createTestApp();
    try {
      const server = t.app.server;
      expect([server.headersTimeout, server.requestTimeout, server.timeout, server.keepAliveTimeout]).toEqual([10_000, 30_000, 120_000, 72_000]);
    } finally {
      await t.close();
    }
  });
});
