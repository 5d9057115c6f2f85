import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/support/test-app.js';

// SIGTERM runs app.close(): a kept-alive connection whose request was in flight when the server
// stopped listening used to stay open until SUIGW_HTTP_KEEP_ALIVE_TIMEOUT_MS (72 s by default),
// so the drain outlasted Kubernetes' 30 s grace period and the usage flush after it never ran.
describe('close() with a request in flight on a keep-alive connection (a real listening server)', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as { port: number }).port;
  });
  afterAll(async () => t.close());

  // No clock in here: each step waits for what it needs (the server has the request; it stopped
  // listening), and without the fix the connection stays open for the keep-alive timeout (72 s),
  // past this test's own timeout.
  it('answers the request, then closes the connection and finishes closing without waiting for the keep-alive timeout', async () => {
    const body = '{"name":"drain","network":"mainnet","unknownField":1}';
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    const socketClosed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    // Node emits 'request' once the headers are read: the request is then in flight, its body not yet sent.
    const inFlight = new Promise<void>((resolve) => t.app.server.once('request', () => resolve()));
    socket.write(
      `POST /mainnet/v1/projects HTTP/1.1\r\nHost: x\r\nx-api-key: ${t.adminKey}\r\ncontent-type: application/json\r\n` +
        `content-length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
    );
    await inFlight;
    const closed = t.app.close();
    await expect.poll(() => t.app.server.listening, { timeout: 10_000 }).toBe(false);
    socket.write(body.slice(5));
    await closed;
    await socketClosed;
    expect(received.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    expect(received).toContain('"code":"VALIDATION_FAILED"');
  }, 30_000);
});
