/**
 * The least a Node HTTP/2 server does: `node:http2`, every stream answered at once with 200 and
 * 64 fixed bytes, nothing read, decoded or allocated per call beyond Node's own stream. The Node
 * row of bench/latency-floor.ts, beside nghttpd (the same nghttp2 library, driven from C).
 *
 * `node bin/run-ts.js bench/lib/bare-h2-answer.ts`
 */
import { createServer } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { exitWithParent, serveUntilStopped } from './service-process.js';

exitWithParent();

export interface BareH2AnswerReady {
  url: string;
}

const BODY = Buffer.alloc(64, 0x61);
const HEADERS = { ':status': 200, 'content-type': 'application/octet-stream' };

const server = createServer();
server.on('stream', (stream) => {
  stream.respond(HEADERS);
  stream.end(BODY);
});
server.listen(0, '127.0.0.1', () => {
  const ready: BareH2AnswerReady = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  serveUntilStopped(ready, () => new Promise<void>((resolve) => server.close(() => resolve())));
});
