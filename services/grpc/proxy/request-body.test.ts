import { once } from 'node:events';
import { PassThrough, Readable } from 'node:stream';
import http2 from 'node:http2';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forwardRequestBody } from './request-body.js';
import { RequestMessageLimit } from './request-message-limit.js';

/** These tests are about framing and ends, not sizes. */
const noLimit = () => new RequestMessageLimit(Number.POSITIVE_INFINITY);

interface Frame {
  type: number;
  flags: number;
  streamId: number;
  length: number;
  /** Which TCP read brought the frame (frames sent in one write usually share one). */
  read: number;
}

const DATA = 0;
const HEADERS = 1;
const END_STREAM = 0x1;
const PREFACE_LENGTH = 24;

/** A TCP relay in front of `port` that parses the HTTP/2 frames the client side sends. */
async function frameRecorder(port: number): Promise<{ port: number; frames: Frame[]; close: () => void }> {
  const frames: Frame[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(port, '127.0.0.1');
    sockets.add(client).add(upstream);
    let pending = Buffer.alloc(0);
    let prefaceSeen = false;
    let reads = 0;
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      reads += 1;
      pending = Buffer.concat([pending, chunk]);
      if (!prefaceSeen && pending.length >= PREFACE_LENGTH) {
        pending = pending.subarray(PREFACE_LENGTH);
        prefaceSeen = true;
      }
      while (prefaceSeen && pending.length >= 9 && pending.length >= 9 + pending.readUIntBE(0, 3)) {
        const length = pending.readUIntBE(0, 3);
        frames.push({ length, type: pending[3]!, flags: pending[4]!, streamId: pending.readUInt32BE(5) & 0x7fffffff, read: reads });
        pending = pending.subarray(9 + length);
      }
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    for (const socket of [client, upstream]) socket.on('error', () => undefined);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    frames,
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

describe('forwardRequestBody: the caller\'s request body to the upstream stream', () => {
  // caller → front (the proxy's listener) → forwardRequestBody → recorder → backend (the node).
  const received = new Map<string, { body: Buffer; ended: boolean }>();
  let backend: http2.Http2Server;
  let front: http2.Http2Server;
  let recorder: Awaited<ReturnType<typeof frameRecorder>>;
  let upstream: http2.ClientHttp2Session;
  let caller: http2.ClientHttp2Session;

  const listen = async (server: http2.Http2Server) => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as net.AddressInfo).port;
  };

  beforeAll(async () => {
    backend = http2.createServer();
    backend.on('stream', (stream, headers) => {
      const seen = { body: Buffer.alloc(0), ended: false };
      received.set(String(headers['x-call']), seen);
      stream.on('data', (chunk: Buffer) => {
        seen.body = Buffer.concat([seen.body, chunk]);
        // Tells the caller what arrived so far (the streamed case waits for it).
        if (!stream.headersSent) stream.respond({ ':status': 200 });
        stream.write(chunk);
      });
      stream.on('end', () => {
        seen.ended = true;
        if (!stream.headersSent) stream.respond({ ':status': 200 });
        stream.end();
      });
    });
    recorder = await frameRecorder(await listen(backend));
    upstream = http2.connect(`http://127.0.0.1:${recorder.port}`);
    front = http2.createServer();
    front.on('stream', (stream, headers) => {
      const call = upstream.request({ ':method': 'POST', ':path': '/call', 'x-call': String(headers['x-call']) });
      forwardRequestBody(stream, call, noLimit(), () => undefined);
      call.on('response', () => stream.respond({ ':status': 200 }));
      call.on('data', (chunk: Buffer) => stream.write(chunk));
      call.on('end', () => stream.end());
    });
    caller = http2.connect(`http://127.0.0.1:${await listen(front)}`);
  });

  afterAll(() => {
    caller.close();
    upstream.close();
    recorder.close();
    front.close();
    backend.close();
  });

  const finished = (stream: http2.ClientHttp2Stream) => new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });

  it('sends a unary body as one DATA frame carrying END_STREAM, in the same write as the headers', async () => {
    const message = Buffer.from([0, 0, 0, 0, 3, 10, 1, 65]);
    const stream = caller.request({ ':method': 'POST', ':path': '/call', 'x-call': 'unary' });
    stream.end(message);
    expect(await finished(stream)).toEqual(message);
    expect(received.get('unary')).toEqual({ body: message, ended: true });
    const headers = recorder.frames.filter((frame) => frame.type === HEADERS).at(-1)!;
    const frames = recorder.frames.filter((frame) => frame.streamId === headers.streamId);
    expect(frames.map(({ type, flags, length }) => ({ type, endStream: (flags & END_STREAM) !== 0, length }))).toEqual([
      { type: HEADERS, endStream: false, length: headers.length },
      { type: DATA, endStream: true, length: message.length },
    ]);
    expect(new Set(frames.map((frame) => frame.read)).size).toBe(1);
  });

  it('forwards a streamed body as it comes and ends it when the caller ends', async () => {
    const stream = caller.request({ ':method': 'POST', ':path': '/call', 'x-call': 'streamed' });
    const echoed: Buffer[] = [];
    const firstEchoed = new Promise<void>((resolve) => stream.once('data', (chunk: Buffer) => {
      echoed.push(chunk);
      resolve();
    }));
    stream.write(Buffer.from('first'));
    // The backend echoes what it got: the first part went upstream before the caller ended.
    await firstEchoed;
    expect(received.get('streamed')).toEqual({ body: Buffer.from('first'), ended: false });
    const rest = finished(stream);
    stream.end(Buffer.from('second'));
    echoed.push(await rest);
    expect(Buffer.concat(echoed).toString()).toBe('firstsecond');
    expect(received.get('streamed')).toEqual({ body: Buffer.from('firstsecond'), ended: true });
  });
});

describe('forwardRequestBody: a body that ended before forwarding began', () => {
  it("still ends the upstream's request (an empty gRPC-Web body timed out upstream and counted against the breaker)", async () => {
    const from = Readable.from([]);
    from.resume();
    await once(from, 'end');
    const to = new PassThrough();
    forwardRequestBody(from, to, noLimit(), () => undefined);
    expect(to.writableEnded).toBe(true);
  });
});
