import { connect } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/support/test-app.js';

const BODY = '{"name":"drain","network":"mainnet","unknownField":1}';

/**
 * A real listening server with one kept-alive connection whose request is in flight (headers and
 * the body's first bytes sent) when `close()` starts; resolves once the server stopped listening.
 * `finish(more)` sends the rest of the body (and `more` behind it on the same connection) and
 * resolves with all the connection received once both it and the close have ended.
 */
async function closeWithRequestInFlight(t: TestApp): Promise<{ finish(more?: string): Promise<string> }> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as { port: number };
  const socket = connect(port, '127.0.0.1');
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  const socketClosed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  // Node emits 'request' once the headers are read: the request is then in flight, its body not yet sent.
  const inFlight = new Promise<void>((resolve) => t.app.server.once('request', () => resolve()));
  socket.write(
    `POST /mainnet/v1/projects HTTP/1.1\r\nHost: x\r\nx-api-key: ${t.adminKey}\r\ncontent-type: application/json\r\n` +
      `content-length: ${BODY.length}\r\n\r\n${BODY.slice(0, 5)}`,
  );
  await inFlight;
  const closed = t.app.close();
  await expect.poll(() => t.app.server.listening, { timeout: 10_000 }).toBe(false);
  return {
    async finish(more = '') {
      socket.write(`${BODY.slice(5)}${more}`);
      await closed;
      await socketClosed;
      return received;
    },
  };
}

// SIGTERM runs app.close(). No clock in here: each step waits for what it needs (the server has
// the request; it stopped listening).
describe('close() with a request in flight on a keep-alive connection (a real listening server)', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp();
  });
  afterEach(async () => t.close());

  // Such a connection used to stay open until SUIGW_HTTP_KEEP_ALIVE_TIMEOUT_MS (72 s by default),
  // so the drain outlasted Kubernetes' 30 s grace period and the usage flush after it never ran;
  // without the fix this waits past the test's own timeout.
  it('answers the request, then closes the connection and finishes closing without waiting for the keep-alive timeout', async () => {
    const received = await (await closeWithRequestInFlight(t)).finish();
    expect(received.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    expect(received).toContain('"code":"VALIDATION_FAILED"');
  }, 30_000);

  // A request that reaches the closing server on that connection (pipelined behind the one in
  // flight) gets the gateway's own error body, not fastify's `{"error":"Service
  // Unavailable",...,"statusCode":503}`; it is refused before authentication (its key here is not
  // even valid, which would otherwise be a 401), so nothing is looked up or charged.
  it('answers a request that arrives meanwhile 503 SHUTTING_DOWN with Retry-After and the standard error body, before authentication', async () => {
    const received = await (await closeWithRequestInFlight(t)).finish('GET /mainnet/v1/auth/me HTTP/1.1\r\nHost: x\r\nx-api-key: sk_not_a_key\r\n\r\n');
    const second = received.slice(received.indexOf('HTTP/1.1', 1));
    expect(second.split('\r\n')[0]).toBe('HTTP/1.1 503 Service Unavailable');
    expect(second.toLowerCase()).toContain('\r\nretry-after: 1\r\n');
    expect(second.toLowerCase()).toContain('\r\nconnection: close\r\n');
    const json = JSON.parse(second.slice(second.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
    expect(json).toEqual({
      error: 'Shutting down',
      message: 'This gateway process is shutting down; nothing was done. Retry the request.',
      code: 'SHUTTING_DOWN',
      retryAfter: 1,
      requestId: expect.any(String),
    });
  }, 30_000);
});
