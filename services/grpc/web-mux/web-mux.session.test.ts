import http from 'node:http';
import http2 from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGrpcWebMux, type GrpcWebMux } from './index.js';

const EMPTY_FRAME = Buffer.alloc(5);

/** One gRPC-Web POST over HTTP/1.1; the grpc-status the caller sees (headers or trailer frame). */
function webCall(port: number, body: Buffer): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/pkg.Service/Method', agent: false, headers: { 'content-type': 'application/grpc-web+proto' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve(String(res.headers['grpc-status'] ?? /grpc-status: (\d+)/.exec(Buffer.concat(chunks).toString('latin1'))?.[1])));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The internal HTTP/2 session every translated call shares, when it fails. */
describe('gRPC-Web mux: the internal session', () => {
  const target = http2.createServer();
  let mux: GrpcWebMux;
  let port: number;
  let first: http2.Http2Session | undefined;
  beforeAll(async () => {
    // The first session refuses every stream as Node does past its memory limit; any later one answers.
    target.on('stream', (stream) => {
      stream.on('error', () => undefined);
      first ??= stream.session;
      if (stream.session === first) {
        stream.close(http2.constants.NGHTTP2_ENHANCE_YOUR_CALM);
        return;
      }
      stream.resume();
      stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '0' }, { endStream: true });
    });
    mux = createGrpcWebMux({ target: { injectConnection: (connection) => target.emit('connection', connection), destroy: () => target.close() } });
    port = (await mux.listen(0, '127.0.0.1')).port;
  });
  afterAll(async () => {
    await mux.close();
  });

  it('a session that resets a stream ENHANCE_YOUR_CALM is replaced: that call is UNAVAILABLE, the next is served', async () => {
    expect(await webCall(port, EMPTY_FRAME)).toBe('14');
    // Before: the next call went to the same session, and so every call until a restart.
    expect(await webCall(port, EMPTY_FRAME)).toBe('0');
    expect(await webCall(port, EMPTY_FRAME)).toBe('0');
  });
});
