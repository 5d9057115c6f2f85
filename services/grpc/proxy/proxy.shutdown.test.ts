import http from 'node:http';
import http2 from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import { GrpcTypes } from '@mysten/sui/grpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { frameMessage } from '../../core/index.js';
import { startGrpcProxyE2E, type GrpcProxyE2E } from '../../../test/support/grpc-proxy-e2e.js';

const SERVICE_INFO = '/sui.rpc.v2.LedgerService/GetServiceInfo';

/** An upstream that holds every call until the test lets it answer (`x-hold: forever`: never). */
async function heldUpstream() {
  const waiting: Array<() => void> = [];
  let arrived: () => void = () => undefined;
  const server = http2.createServer();
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  server.on('stream', (stream, headers) => {
    stream.on('error', () => undefined);
    stream.resume();
    stream.on('end', () => {
      // A call that never ends by itself (as a subscription): held, never answered.
      const forever = headers['x-hold'] === 'forever';
      const answer = () => {
        if (forever) return;
        if (stream.destroyed) return;
        stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
        stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
        stream.end(frameMessage(GrpcTypes.GetServiceInfoResponse.toBinary({ chainId: 'held', chain: 'answered' })));
      };
      // The test's calls are held; anything else (the upstream's background probe) is answered at once.
      if (headers['x-test-call'] === undefined) return answer();
      waiting.push(answer);
      arrived();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** Resolves once `count` calls are held. */
    held: (count: number) => new Promise<void>((resolve) => {
      const check = () => (waiting.length >= count ? resolve() : undefined);
      arrived = check;
      check();
    }),
    answerAll: () => { for (const answer of waiting) answer(); },
    stop: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const session of sessions) session.destroy();
    }),
  };
}

/**
 * SIGTERM (`close()`) with calls in flight. Before, the close destroyed every connection at once:
 * a unary call in flight got RST_STREAM INTERNAL_ERROR (no status, no answer; clients see INTERNAL,
 * which they do not retry), on every rollout and `docker stop`. Now each connection gets GOAWAY,
 * the calls in flight are answered, new connections and calls go elsewhere, and what never ends
 * by itself (a subscription) is cut once the drain time has passed.
 */
describe('gRPC proxy close with calls in flight', () => {
  let upstream: Awaited<ReturnType<typeof heldUpstream>>;
  let e2e: GrpcProxyE2E;
  let key: string;

  beforeAll(async () => {
    upstream = await heldUpstream();
    e2e = await startGrpcProxyE2E({ upstreamUrl: upstream.url, drainMs: 1_000 });
    key = await e2e.key();
  });
  afterAll(async () => {
    await e2e.stop();
    await upstream.stop();
  });

  function nativeCall(session: http2.ClientHttp2Session, metadata: Record<string, string> = {}) {
    const native = session.request({ ':method': 'POST', ':path': SERVICE_INFO, 'content-type': 'application/grpc', te: 'trailers', 'x-api-key': key, 'x-test-call': '1', ...metadata });
    native.on('error', () => undefined);
    native.end(frameMessage(new Uint8Array()));
    return new Promise<{ status: string | undefined; bytes: number; rstCode: number }>((resolve) => {
      const chunks: Buffer[] = [];
      let status: string | undefined;
      native.on('data', (chunk: Buffer) => chunks.push(chunk));
      native.on('trailers', (trailers) => { status = String(trailers['grpc-status']); });
      native.on('close', () => resolve({ status, bytes: Buffer.concat(chunks).length, rstCode: native.rstCode ?? -1 }));
    });
  }

  it('answers the native gRPC and gRPC-Web calls in flight; cuts what does not end within the drain time; then closes', async () => {
    const session = http2.connect(`http://${e2e.host}`);
    session.on('error', () => undefined);
    const nativeAnswer = nativeCall(session);
    const other = http2.connect(`http://${e2e.host}`);
    other.on('error', () => undefined);
    const endless = nativeCall(other, { 'x-hold': 'forever' });
    const web = fetch(`http://${e2e.host}${SERVICE_INFO}`, {
      method: 'POST',
      headers: { 'content-type': 'application/grpc-web+proto', 'x-grpc-web': '1', 'x-api-key': key, 'x-test-call': '1' },
      body: new Uint8Array(frameMessage(new Uint8Array())),
    }).then(async (response) => ({ status: response.status, grpcStatus: response.headers.get('grpc-status'), body: Buffer.from(await response.arrayBuffer()) }));
    await upstream.held(3);

    const closed = e2e.proxy.close();
    upstream.answerAll();
    const answered = await nativeAnswer;
    expect(answered).toEqual({ status: '0', bytes: answered.bytes, rstCode: http2.constants.NGHTTP2_NO_ERROR });
    expect(answered.bytes).toBeGreaterThan(5);
    const webAnswer = await web;
    expect(webAnswer.status).toBe(200);
    // The trailer frame (0x80) carries grpc-status 0.
    expect(webAnswer.body.toString('latin1')).toContain('grpc-status: 0\r\n');
    // The call that never ends holds the close for the drain time (1 s here), then is cut.
    await closed;
    expect((await endless).status).toBeUndefined();
    session.destroy();
    other.destroy();
  }, 30_000);
});

/**
 * A browser keeps its HTTP/1.1 gRPC-Web connection alive between calls. Before, the close meant to
 * close such a connection once idle through `closeIdleConnections()` of the mux's HTTP server, which
 * does nothing for a server that never listened (the mux hands it its sockets): any idle
 * keep-alive connection held the close for the whole drain time, with no call in flight. The drain
 * time here is far longer than the test's timeout, so waiting for it fails the test.
 */
describe('gRPC proxy close with idle gRPC-Web keep-alive connections', () => {
  let upstream: Awaited<ReturnType<typeof heldUpstream>>;
  let e2e: GrpcProxyE2E;
  let key: string;

  beforeAll(async () => {
    upstream = await heldUpstream();
    // The held call waits for the test, not for the upstream deadline.
    e2e = await startGrpcProxyE2E({ upstreamUrl: upstream.url, drainMs: 600_000, policy: { deadlineMs: 60_000, attemptTimeoutMs: 60_000 } });
    key = await e2e.key();
  });
  afterAll(async () => {
    await e2e.stop();
    await upstream.stop();
  });

  /** One gRPC-Web call over `agent` (keep-alive); resolves once answered, with the socket it used. */
  function webCall(agent: http.Agent, metadata: Record<string, string> = {}) {
    return new Promise<{ status: number | undefined; connection: string | undefined; body: string; socket: Socket }>((resolve, reject) => {
      const request = http.request({
        host: '127.0.0.1', port: Number(e2e.host.split(':')[1]), method: 'POST', path: SERVICE_INFO, agent,
        headers: { 'content-type': 'application/grpc-web+proto', 'x-grpc-web': '1', 'x-api-key': key, ...metadata },
      }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode, connection: response.headers.connection, body: Buffer.concat(chunks).toString('latin1'), socket: request.socket as Socket }));
      });
      request.on('error', reject);
      request.end(frameMessage(new Uint8Array()));
    });
  }

  it('closes an idle keep-alive connection at once and one with a call in flight after its answer, without waiting for the drain time', async () => {
    const idleAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const busyAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    // A call answered at once: its connection stays open, idle, for the next call.
    const first = await webCall(idleAgent);
    expect(first.status).toBe(200);
    expect(first.connection).toBe('keep-alive');
    expect(first.body).toContain('grpc-status: 0\r\n');
    expect(first.socket.destroyed).toBe(false);
    const idleClosed = new Promise<void>((resolve) => first.socket.once('close', () => resolve()));
    // A call held by the upstream on another keep-alive connection.
    const inFlight = webCall(busyAgent, { 'x-test-call': '1' });
    await upstream.held(1);

    const closed = e2e.proxy.close();
    // The idle connection is closed by the server, the call in flight still answered.
    await idleClosed;
    upstream.answerAll();
    const answered = await inFlight;
    expect(answered.status).toBe(200);
    expect(answered.body).toContain('grpc-status: 0\r\n');
    // The answer says the connection ends with it (it began after the close did).
    expect(answered.connection).toBe('close');
    // Resolves once both connections have closed, long before the drain time (600 s): waiting for
    // it would fail the test by its timeout.
    await closed;
    idleAgent.destroy();
    busyAgent.destroy();
  }, 20_000);
});
