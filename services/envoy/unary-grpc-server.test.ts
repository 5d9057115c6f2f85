import http2 from 'node:http2';
import { Writable } from 'node:stream';
import { Client, credentials, Metadata, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, createLogger } from '../core/index.js';
import { frameMessage } from '../core/index.js';
import { MalformedMessage, startUnaryGrpcServer, type UnaryGrpcServer } from './unary-grpc-server.js';

const ECHO = '/test.Echo/Echo';
const REFUSE = '/test.Echo/Refuse';
const MALFORMED = '/test.Echo/Malformed';
const BROKEN = '/test.Echo/Broken';
const HELD = '/test.Echo/Held';
const LENGTH = '/test.Echo/Length';
const DEFERRED = '/test.Echo/Deferred';

/** The unary gRPC transport, called by grpc-js (a real gRPC client) and by raw HTTP/2 for what grpc-js never sends. */
describe('unary gRPC over node:http2', () => {
  let server: UnaryGrpcServer;
  let client: Client;
  const logged: Record<string, unknown>[] = [];
  /** Calls of HELD wait here until the test lets them answer. */
  const held: (() => void)[] = [];
  let heldCalls = 0;
  /** What became of DEFERRED's answers: sent or dropped. */
  const deferred: string[] = [];

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logged.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
        done();
      },
    });
    server = await startUnaryGrpcServer([
      { path: ECHO, name: 'echo', call: async (message) => frameMessage(Buffer.concat([Buffer.from('echo:'), message])) },
      { path: LENGTH, name: 'length', call: async (message) => frameMessage(Buffer.from(String(message.length))) },
      {
        path: DEFERRED, name: 'deferred', call: async (message) => ({
          send: () => { deferred.push('sent'); return frameMessage(message); },
          drop: () => deferred.push('dropped'),
        }),
      },
      { path: REFUSE, name: 'refuse', call: () => Promise.reject(new ApiError('API_KEY_MISSING')) },
      { path: MALFORMED, name: 'malformed', call: () => { throw new MalformedMessage('field 1 has the wrong wire type'); } },
      { path: BROKEN, name: 'broken', call: () => Promise.reject(new Error('database down')) },
      {
        path: HELD, name: 'held', call: async (message) => {
          heldCalls += 1;
          await new Promise<void>((resolve) => held.push(resolve));
          return frameMessage(message);
        },
      },
    ], { host: '127.0.0.1', port: 0 }, createLogger('info', {}, sink));
    client = new Client(`127.0.0.1:${server.port}`, credentials.createInsecure());
  });
  afterAll(async () => {
    client?.close();
    await server?.close();
  });

  const call = (path: string, body: Buffer, deadline?: Date) =>
    new Promise<{ error: ServiceError | null; value: Buffer | undefined }>((resolve) => {
      client.makeUnaryRequest(path, (b: Buffer) => b, (b: Buffer) => b, body, new Metadata(), deadline ? { deadline } : {}, (error, value) => resolve({ error, value }));
    });

  /** One raw HTTP/2 request: its response headers, trailers and body. */
  async function raw(headers: http2.OutgoingHttpHeaders, body?: Buffer) {
    const session = http2.connect(`http://127.0.0.1:${server.port}`);
    try {
      return await new Promise<{ headers: http2.IncomingHttpHeaders; trailers: http2.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
        const stream = session.request({ ':method': 'POST', 'content-type': 'application/grpc', te: 'trailers', ...headers });
        let response: http2.IncomingHttpHeaders = {};
        let trailers: http2.IncomingHttpHeaders = {};
        const chunks: Buffer[] = [];
        stream.on('response', (h) => (response = h));
        stream.on('trailers', (t) => (trailers = t));
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('close', () => resolve({ headers: response, trailers, body: Buffer.concat(chunks) }));
        stream.on('error', reject);
        stream.end(body);
      });
    } finally {
      session.close();
    }
  }

  it('answers a call with its message and grpc-status 0, many calls on one connection', async () => {
    const answers = await Promise.all(['a', 'b', 'c'].map((text) => call(ECHO, Buffer.from(text))));
    expect(answers.map(({ error, value }) => [error, value?.toString()])).toEqual([[null, 'echo:a'], [null, 'echo:b'], [null, 'echo:c']]);
    expect((await call(ECHO, Buffer.alloc(0))).value?.toString()).toBe('echo:');
  });

  it('an unknown method: UNIMPLEMENTED', async () => {
    const { error } = await call('/test.Echo/Nothing', Buffer.from('x'));
    expect([error?.code, error?.details]).toEqual([12, 'The server does not implement the method /test.Echo/Nothing']);
  });

  it('a malformed message: INVALID_ARGUMENT; an ApiError: its gRPC status and message', async () => {
    const malformed = await call(MALFORMED, Buffer.from('x'));
    expect([malformed.error?.code, malformed.error?.details]).toEqual([3, 'field 1 has the wrong wire type']);
    const refused = await call(REFUSE, Buffer.from('x'));
    expect([refused.error?.code, refused.error?.details]).toEqual([16, 'Missing API key']);
  });

  it('any other failure: UNAVAILABLE "<name> could not decide", logged with its error', async () => {
    const { error } = await call(BROKEN, Buffer.from('x'));
    expect([error?.code, error?.details]).toEqual([14, 'broken could not decide']);
    expect(logged.find((line) => line['msg'] === 'broken call failed')).toMatchObject({ level: 50, err: { message: 'database down' } });
  });

  it('an answer ready after the caller\'s grpc-timeout: DEADLINE_EXCEEDED', async () => {
    const answer = raw({ ':path': HELD, 'grpc-timeout': '1n' }, frameMessage(Buffer.from('late')));
    await expect.poll(() => held.length).toBe(1);
    held.shift()!();
    const { headers, body } = await answer;
    expect([headers['grpc-status'], headers['grpc-message'], body.length]).toEqual(['4', 'Deadline exceeded', 0]);
    // A deadline not yet reached changes nothing.
    const inTime = raw({ ':path': HELD, 'grpc-timeout': '99999999S' }, frameMessage(Buffer.from('on time')));
    await expect.poll(() => held.length).toBe(1);
    held.shift()!();
    const answered = await inTime;
    expect([answered.trailers['grpc-status'], answered.body.subarray(5).toString()]).toEqual(['0', 'on time']);
  });

  it('a deferred answer is made only when it is sent; past the deadline it is dropped instead', async () => {
    const late = await raw({ ':path': DEFERRED, 'grpc-timeout': '1n' }, frameMessage(Buffer.from('late')));
    expect([late.headers['grpc-status'], late.body.length]).toEqual(['4', 0]);
    expect(deferred).toEqual(['dropped']);
    const inTime = await raw({ ':path': DEFERRED, 'grpc-timeout': '99999999S' }, frameMessage(Buffer.from('on time')));
    expect([inTime.trailers['grpc-status'], inTime.body.subarray(5).toString()]).toEqual(['0', 'on time']);
    expect(deferred).toEqual(['dropped', 'sent']);
  });

  it('a caller that goes away before the answer: nothing is written, the server goes on', async () => {
    const before = heldCalls;
    const { error } = await call(HELD, Buffer.from('x'), new Date(Date.now() + 50));
    expect(error?.code).toBe(4);
    // grpc-js reset the stream at its deadline; the call is answered afterwards, into nothing.
    await expect.poll(() => heldCalls).toBe(before + 1);
    held.shift()!();
    expect((await call(ECHO, Buffer.from('still here'))).value?.toString()).toBe('echo:still here');
  });

  it('gRPC\'s own refusals: no message or two (UNIMPLEMENTED), compression (UNIMPLEMENTED / INTERNAL), over 4 MiB (RESOURCE_EXHAUSTED)', async () => {
    const status = async (headers: http2.OutgoingHttpHeaders, body?: Buffer) => {
      const answer = await raw({ ':path': ECHO, ...headers }, body);
      return [answer.headers[':status'], answer.headers['grpc-status'], answer.headers['grpc-message']];
    };
    expect(await status({})).toEqual([200, '12', `Received no request message for ${ECHO}`]);
    expect(await status({}, Buffer.concat([frameMessage(Buffer.from('a')), frameMessage(Buffer.from('b'))]))).toEqual([200, '12', `Received more than one request message for ${ECHO}`]);
    // A message cut short: not a whole frame when the request ended.
    expect(await status({}, frameMessage(Buffer.from('abc')).subarray(0, 6))).toEqual([200, '12', `Received no request message for ${ECHO}`]);
    expect(await status({ 'grpc-encoding': 'gzip' }, frameMessage(Buffer.from('a')))).toEqual([200, '12', 'Compression gzip is not supported']);
    const compressed = frameMessage(Buffer.from('a'));
    compressed[0] = 1;
    expect(await status({}, compressed)).toEqual([200, '13', 'Received a compressed message, but no compression was negotiated']);
    const huge = Buffer.alloc(5);
    huge.writeUInt32BE(4 * 1024 * 1024 + 1, 1);
    expect(await status({}, huge)).toEqual([200, '8', `Received message larger than max (${4 * 1024 * 1024 + 1} vs. ${4 * 1024 * 1024})`]);
    // The largest message allowed is answered.
    const largest = Buffer.alloc(4 * 1024 * 1024, 7);
    expect((await call(LENGTH, largest)).value?.toString()).toBe(String(4 * 1024 * 1024));
  });

  it('not gRPC (another method or content type): HTTP 415', async () => {
    expect((await raw({ ':method': 'GET', ':path': ECHO })).headers[':status']).toBe(415);
    expect((await raw({ ':path': ECHO, 'content-type': 'application/json' }, Buffer.from('{}'))).headers[':status']).toBe(415);
  });

  it('close() lets a call in flight finish, then stops', async () => {
    const other = await startUnaryGrpcServer([{ path: HELD, name: 'held', call: async (message) => {
      await new Promise<void>((resolve) => held.push(resolve));
      return frameMessage(message);
    } }], { host: '127.0.0.1', port: 0 }, createLogger('silent'));
    const otherClient = new Client(`127.0.0.1:${other.port}`, credentials.createInsecure());
    try {
      const answer = new Promise<Buffer | undefined>((resolve) => {
        otherClient.makeUnaryRequest(HELD, (b: Buffer) => b, (b: Buffer) => b, Buffer.from('last'), (_error, value) => resolve(value));
      });
      await expect.poll(() => held.length).toBe(1);
      const closed = other.close();
      held.shift()!();
      expect((await answer)?.toString()).toBe('last');
      await closed;
    } finally {
      otherClient.close();
    }
  });
});
