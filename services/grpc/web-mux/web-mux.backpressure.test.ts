import { once } from 'node:events';
import http from 'node:http';
import http2 from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FlowControlledWriter } from '../../../test/support/flow-controlled-writer.js';
import { createGrpcWebMux, type GrpcWebMux } from './index.js';

const FRAME_BYTES = 64 * 1024;
/** What the server streams in all. */
const STREAMED_BYTES = 64 * 1024 * 1024;
/**
 * How far the server may get ahead of a client that reads nothing: the mux's buffers, both
 * flow-control windows and the loopback socket's kernel buffers (a few MiB), never the stream.
 */
const MAX_AHEAD_BYTES = 16 * 1024 * 1024;

/** The call a slow reader reads to its end, and its size: several times what the buffers hold. */
const SLOW_PATH = '/pkg.Service/Slow';
const SLOW_READ_BYTES = 8 * 1024 * 1024;
const slow = new FlowControlledWriter();

/** The one streamed call: what the server has written (and whether it waits for 'drain' or is done), and what the client read. */
const call = new FlowControlledWriter();
let read = 0;

/** A gRPC-Web response stream whose client reads only while the server cannot write. */
describe('gRPC-Web mux: response backpressure', () => {
  const target = http2.createServer();
  let mux: GrpcWebMux;
  let port: number;
  beforeAll(async () => {
    const frame = Buffer.alloc(5 + FRAME_BYTES);
    frame.writeUInt32BE(FRAME_BYTES, 1);
    target.on('stream', (stream, headers) => {
      stream.on('error', () => undefined);
      stream.resume();
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.once('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
      if (headers[':path'] === SLOW_PATH) slow.stream(stream, frame, SLOW_READ_BYTES);
      else call.stream(stream, frame, STREAMED_BYTES);
    });
    mux = createGrpcWebMux({ target: { injectConnection: (connection) => target.emit('connection', connection), destroy: () => target.close() } });
    port = (await mux.listen(0, '127.0.0.1')).port;
  });
  afterAll(async () => {
    await mux.close();
  });

  it('a client that stops reading stops the server: the mux does not hold the stream for it', async () => {
    const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/pkg.Service/Stream', agent: false, headers: { 'content-type': 'application/grpc-web+proto' } }, resolve);
      req.on('error', reject);
      req.end(Buffer.alloc(5));
    });
    res.pause();
    // The client reads nothing until the server is stuck: waiting for 'drain' and still waiting
    // after many turns of the event loop. All in this process (the internal session is in
    // memory), so a mux that reads on frees the server within a few turns.
    const stuckAt = await call.stuckAt();
    // Before: the mux read on and wrote into the client's response whatever it was sent: the
    // server streamed all 64 MiB to a client that read none of it.
    expect(call.done).toBe(false);
    expect(stuckAt).toBeLessThan(MAX_AHEAD_BYTES);
    // Once the client reads, the stream goes on to its end.
    res.on('data', (chunk: Buffer) => (read += chunk.length));
    res.resume();
    await once(res, 'end');
    expect(read).toBeGreaterThanOrEqual(STREAMED_BYTES);
  }, 60_000);

  it('a client that reads slowly gets the whole response and then its trailers, nothing cut', async () => {
    // The trailers come as soon as the last data fits the window, while the mux may still hold
    // data for a client that has not drained: before, they were written at once and the held
    // data dropped, a stream cut short that still said OK.
    const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: SLOW_PATH, agent: false, headers: { 'content-type': 'application/grpc-web+proto' } }, resolve);
      req.on('error', reject);
      req.end(Buffer.alloc(5));
    });
    const chunks: Buffer[] = [];
    res.pause();
    // It reads nothing until the server is stuck or done: the mux then holds what it could not
    // write, and the last data and the trailers reach it while it holds the rest.
    await slow.stuckAt();
    res.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      res.pause();
      setTimeout(() => res.resume(), 1);
    });
    res.resume();
    await once(res, 'end');
    const body = Buffer.concat(chunks);
    const trailerFrame = Buffer.concat([Buffer.from([0x80, 0, 0, 0, 16]), Buffer.from('grpc-status: 0\r\n')]);
    expect(body.length).toBe(SLOW_READ_BYTES + (SLOW_READ_BYTES / FRAME_BYTES) * 5 + trailerFrame.length);
    expect(body.subarray(body.length - trailerFrame.length)).toEqual(trailerFrame);
  }, 60_000);
});
