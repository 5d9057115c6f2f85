import { once } from 'node:events';
import http2 from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FlowControlledWriter } from '../../../test/support/flow-controlled-writer.js';
import { GrpcStatus } from '../../core/index.js';
import { startGrpcProxyE2E, type GrpcProxyE2E } from '../../../test/support/grpc-proxy-e2e.js';

const STREAM_PATH = '/pkg.Service/Stream';
const MESSAGE_BYTES = 64 * 1024;
const FRAME_BYTES = 5 + MESSAGE_BYTES;
const MESSAGES = 512;
/** How many messages the client reads before it stops. */
const READ_FIRST = 8;
/** What the upstream streams in all: 32 MiB. */
const STREAMED_BYTES = MESSAGES * FRAME_BYTES;
/**
 * How far the upstream may get ahead of a client that reads nothing: the proxy's one message
 * waiting for 'drain', the flow-control windows of both hops and the streams' buffers, never the
 * stream.
 */
const MAX_AHEAD_BYTES = 4 * 1024 * 1024;

/** The one streamed call: what the upstream has written, and whether it waits for 'drain' or is done. */
const call = new FlowControlledWriter();

/** A native gRPC server stream (as SubscribeCheckpoints) whose client stops reading, and reads on only once the upstream cannot write. */
describe('gRPC proxy: response backpressure', () => {
  const upstream = http2.createServer();
  let e2e: GrpcProxyE2E;
  beforeAll(async () => {
    const frame = Buffer.alloc(FRAME_BYTES);
    frame.writeUInt32BE(MESSAGE_BYTES, 1);
    upstream.on('stream', (stream, headers) => {
      stream.on('error', () => undefined);
      stream.resume();
      // The upstream's own probe (GetServiceInfo) is not the streamed call.
      if (headers[':path'] !== STREAM_PATH) {
        stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': String(GrpcStatus.UNIMPLEMENTED) }, { endStream: true });
        return;
      }
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.once('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
      call.stream(stream, frame, STREAMED_BYTES);
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', () => resolve()));
    e2e = await startGrpcProxyE2E({ upstreamUrl: `http://127.0.0.1:${(upstream.address() as { port: number }).port}` });
  });
  afterAll(async () => {
    await e2e.stop();
    upstream.close();
  });

  it('a client that stops reading stops the upstream; what it reads is charged 1 credit a message, as before', async () => {
    const remaining = async () => (await e2e.metering.ledger.balance(e2e.gateway.organizationId)).remaining;
    const before = await remaining();
    const session = http2.connect(`http://${e2e.host}`);
    session.on('error', () => undefined);
    try {
      const stream = session.request({ ':method': 'POST', ':path': STREAM_PATH, 'content-type': 'application/grpc', te: 'trailers', 'x-api-key': e2e.gateway.adminKey });
      const trailers = new Promise<http2.IncomingHttpHeaders>((resolve) => stream.once('trailers', resolve));
      // The client reads the first messages (streamed ones, each paid for before it is written:
      // the ledger's pause and the client's must both hold the upstream), then stops.
      let read = 0;
      let stop: (() => void) | undefined;
      const stopped = new Promise<void>((resolve) => (stop = resolve));
      stream.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read < READ_FIRST * FRAME_BYTES || !stop) return;
        stream.pause();
        stop();
        stop = undefined;
      });
      stream.end(Buffer.alloc(5));
      await stopped;
      // It reads nothing more until the upstream is stuck: waiting for 'drain' and still
      // waiting after many turns of the event loop (each one polls the sockets), where a proxy
      // that reads on frees it within a few.
      const stuckAt = await call.stuckAt();
      // Before: the proxy read on and wrote into the client's stream whatever came, charging each
      // message as it was buffered: the upstream streamed all 32 MiB, paid for, to a client that
      // read almost none of it.
      expect(call.done).toBe(false);
      expect(stuckAt).toBeLessThan(MAX_AHEAD_BYTES);
      expect(before - (await remaining())).toBeLessThan(MAX_AHEAD_BYTES / FRAME_BYTES);
      // Once the client reads again, the stream goes on to its end, each message paid for.
      stream.resume();
      await once(stream, 'end');
      expect(read).toBe(STREAMED_BYTES);
      expect((await trailers)['grpc-status']).toBe('0');
      expect(await remaining()).toBe(before - MESSAGES);
    } finally {
      session.destroy();
    }
  }, 60_000);
});
