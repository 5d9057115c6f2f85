import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { GrpcTypes } from '@mysten/sui/grpc';
import { frameMessage } from '../../services/core/index.js';

/** gRPC's percent-encoding of `grpc-message`, as a server sends it: bytes outside printable ASCII (and `%`) as %XX. */
const percentEncoded = (message: string) =>
  [...Buffer.from(message, 'utf8')].map((b) => (b >= 0x20 && b <= 0x7e && b !== 0x25 ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`)).join('');

const SERVICE_INFO = '/sui.rpc.v2.LedgerService/GetServiceInfo';
/** The `grpc-status-details-bin` of the `details` answer. */
export const SCRIPTED_DETAILS = Buffer.from([8, 9, 18, 4, 110, 111, 112, 101]);

/**
 * A plain `node:http2` gRPC server that answers GetServiceInfo the way the request's
 * `x-scripted` metadata asks: the answers a Sui node or a proxy in front of it can give that
 * simnet does not (an 8 MiB message, a length prefix over the limit, status details, HTTP 503,
 * a hang, GOAWAY after each answer).
 */
export async function startScriptedGrpcServer() {
  const seen = { sessions: 0, cancelled: 0, timeouts: [] as string[] };
  const server = http2.createServer();
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (session) => {
    seen.sessions += 1;
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  server.on('stream', (stream, headers) => {
    const script = String(headers['x-scripted'] ?? 'ok');
    seen.timeouts.push(String(headers['grpc-timeout'] ?? ''));
    stream.on('error', () => undefined);
    stream.on('close', () => { if (stream.rstCode === http2.constants.NGHTTP2_CANCEL) seen.cancelled += 1; });
    const answer = (info: { chain: string }) => {
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
      stream.end(frameMessage(GrpcTypes.GetServiceInfoResponse.toBinary({ chainId: 'scripted', chain: info.chain })));
    };
    stream.resume();
    stream.on('end', () => {
      if (headers[':path'] !== SERVICE_INFO) {
        stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '12' }, { endStream: true });
        return;
      }
      switch (script) {
        case 'large': answer({ chain: 'x'.repeat(8 * 1024 * 1024) }); return;
        case 'oversize': {
          // Only the prefix: it announces a message one byte over the 64 MiB limit.
          const prefix = Buffer.alloc(5);
          prefix.writeUInt32BE(64 * 1024 * 1024 + 1, 1);
          stream.respond({ ':status': 200, 'content-type': 'application/grpc' });
          stream.write(prefix);
          return;
        }
        case 'details':
          stream.respond({
            ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '9',
            'grpc-message': percentEncoded('no: not now — über'),
            // Unpadded, as some servers send it.
            'grpc-status-details-bin': SCRIPTED_DETAILS.toString('base64').replace(/=+$/, ''),
            'x-node-trailer': 'kept',
          }, { endStream: true });
          return;
        case 'http503':
          stream.respond({ ':status': 503, 'content-type': 'text/plain' });
          stream.end('overloaded');
          return;
        case 'hang': return;
        case 'goaway':
          answer({ chain: 'once' });
          // GOAWAY now: this stream finishes, the next call must come on a new connection.
          stream.session?.close();
          return;
        default: answer({ chain: String(headers['x-echo'] ?? 'ok') });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    seen,
    url: `http://127.0.0.1:${port}`,
    stop: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const session of sessions) session.destroy();
    }),
  };
}
