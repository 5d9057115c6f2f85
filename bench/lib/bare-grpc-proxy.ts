/**
 * The gRPC proxy's baseline: the least a Node process can do to forward a gRPC call. A plain
 * `node:http2` h2c server that opens one stream per call on one session to the upstream, passes
 * the request's headers and bytes on, and the answer's headers, bytes and trailers back. No
 * authentication, metering, metrics, breaker, deadline or gRPC-Web. What the proxy costs beyond
 * this is ours; what this costs beyond direct is the extra hop in Node on this machine.
 *
 * `node bin/run-ts.js bench/lib/bare-grpc-proxy.ts` with SUI_GRPC_URL set.
 */
import http2 from 'node:http2';
import net from 'node:net';
import { installLeanAsyncResourceBind } from '../../services/core/async-resource-bind.js';
import { exitWithParent, serveUntilStopped } from './service-process.js';

exitWithParent();
// BENCH_BARE_LEAN_BIND=1: the same Node 20 runtime fix as every suigw process (services/cli).
if (process.env['BARE_LEAN_BIND'] === '1') installLeanAsyncResourceBind();

export interface BareGrpcProxyReady {
  url: string;
}

const upstreamUrl = new URL(process.env['SUI_GRPC_URL'] ?? '');
if (upstreamUrl.protocol !== 'http:') throw new Error('SUI_GRPC_URL must be an http:// (h2c) URL');
const upstream = http2.connect(upstreamUrl.origin, {
  createConnection: () => net.connect({ host: upstreamUrl.hostname, port: Number(upstreamUrl.port), noDelay: true }),
});

/** Headers a proxy must not copy from one HTTP/2 stream to another. */
const HOP_BY_HOP = new Set([':status', ':method', ':path', ':scheme', ':authority', 'content-length']);

function copyHeaders(from: http2.IncomingHttpHeaders): http2.OutgoingHttpHeaders {
  const headers: http2.OutgoingHttpHeaders = {};
  for (const name in from) if (!HOP_BY_HOP.has(name)) headers[name] = from[name];
  return headers;
}

const server = http2.createServer();
server.on('stream', (stream, headers) => {
  const call = upstream.request({ ...copyHeaders(headers), ':method': 'POST', ':path': headers[':path'] });
  stream.pipe(call);
  // h2load resets its open streams when a round ends: an answer may come for a stream already gone.
  call.on('response', (answer) => {
    if (!stream.destroyed && !stream.closed) stream.respond({ ...copyHeaders(answer), ':status': answer[':status'] }, { waitForTrailers: true });
  });
  let trailers: http2.OutgoingHttpHeaders = {};
  call.on('trailers', (received) => (trailers = copyHeaders(received)));
  stream.on('wantTrailers', () => stream.sendTrailers(trailers));
  call.pipe(stream);
  call.on('error', () => stream.destroy());
  stream.on('error', () => call.destroy());
  stream.on('close', () => {
    if (!call.closed) call.close(http2.constants.NGHTTP2_CANCEL);
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address() as net.AddressInfo;
  const ready: BareGrpcProxyReady = { url: `http://127.0.0.1:${address.port}` };
  serveUntilStopped(ready, async () => {
    upstream.close();
    await new Promise<void>((done) => server.close(() => done()));
  });
});
