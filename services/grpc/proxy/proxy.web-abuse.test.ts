import http from 'node:http';
import { connect, constants, type ClientHttp2Session } from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGrpcProxyE2E, type GrpcProxyE2E } from '../../../test/support/grpc-proxy-e2e.js';
import { MAX_REQUEST_MESSAGE_BYTES } from './request-message-limit.js';

const GET_SERVICE_INFO = '/sui.rpc.v2.LedgerService/GetServiceInfo';

/** One gRPC message frame of `size` zero bytes. */
function frame(size: number): Buffer {
  const bytes = Buffer.alloc(5 + size);
  bytes.writeUInt32BE(size, 1);
  return bytes;
}

interface WebAnswer {
  status: string | undefined;
  message: string | undefined;
}

/** A GetServiceInfoRequest frame whose message is `size` bytes: an unknown bytes field (number 15), which the node skips. */
function requestOfSize(size: number): Buffer {
  const length = size - 5; // tag byte and a 4-byte varint length, for sizes of 2 MiB to 256 MiB
  const message = Buffer.alloc(size);
  message[0] = (15 << 3) | 2;
  for (let i = 0, rest = length; i < 4; i++, rest >>>= 7) message[1 + i] = (rest & 0x7f) | (i < 3 ? 0x80 : 0);
  const header = Buffer.alloc(5);
  header.writeUInt32BE(size, 1);
  return Buffer.concat([header, message]);
}

/** One gRPC-Web POST over HTTP/1.1 on its own connection; the status from the headers (trailers-only) or the trailer frame. */
function webCall(host: string, body: Buffer, key?: string): Promise<WebAnswer> {
  const [hostname, port] = host.split(':');
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: hostname, port: Number(port), method: 'POST', path: GET_SERVICE_INFO, agent: false,
      headers: { 'content-type': 'application/grpc-web+proto', ...(key ? { 'x-api-key': key } : {}) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('latin1');
        const status = res.headers['grpc-status'] ?? /grpc-status: (\d+)/.exec(text)?.[1];
        const message = res.headers['grpc-message'] ?? /grpc-message: ([^\r]*)/.exec(text)?.[1];
        resolve({ status: status === undefined ? undefined : String(status), message: message === undefined ? undefined : decodeURIComponent(String(message)) });
      });
    });
    // The proxy may answer (and close) before the whole body is sent: the answer still arrives.
    req.on('error', reject);
    req.end(body);
  });
}

/** The status of a gRPC-Web answer (trailers-only: in its headers) to a POST whose body is never ended. */
function answerToUnfinishedBody(host: string, first: Buffer): Promise<{ answer: WebAnswer; request: http.ClientRequest }> {
  const [hostname, port] = host.split(':');
  return new Promise((resolve, reject) => {
    const request = http.request({
      host: hostname, port: Number(port), method: 'POST', path: GET_SERVICE_INFO, agent: false, headers: { 'content-type': 'application/grpc-web+proto' },
    }, (res) => {
      res.resume();
      resolve({ answer: { status: String(res.headers['grpc-status']), message: decodeURIComponent(String(res.headers['grpc-message'])) }, request });
    });
    request.on('error', reject);
    request.write(first);
  });
}

/** The same over HTTP/2 (h2c), on `session`. */
function answerToUnfinishedBodyH2(session: ClientHttp2Session, first: Buffer): Promise<WebAnswer> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ [constants.HTTP2_HEADER_METHOD]: 'POST', [constants.HTTP2_HEADER_PATH]: GET_SERVICE_INFO, 'content-type': 'application/grpc-web+proto' });
    stream.on('response', (headers) => {
      resolve({ status: String(headers['grpc-status']), message: decodeURIComponent(String(headers['grpc-message'])) });
      stream.close();
    });
    stream.on('error', reject);
    stream.write(first);
  });
}

/** A native gRPC call's status, over `session`. */
function nativeCall(session: ClientHttp2Session, body: Buffer, key: string): Promise<WebAnswer> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ [constants.HTTP2_HEADER_METHOD]: 'POST', [constants.HTTP2_HEADER_PATH]: GET_SERVICE_INFO, 'content-type': 'application/grpc', te: 'trailers', 'x-api-key': key });
    let status: WebAnswer = { status: undefined, message: undefined };
    const read = (headers: Record<string, unknown>) => {
      if (headers['grpc-status'] !== undefined) status = { status: String(headers['grpc-status']), message: decodeURIComponent(String(headers['grpc-message'] ?? '')) };
    };
    stream.on('response', read);
    stream.on('trailers', read);
    stream.on('end', () => resolve(status));
    stream.on('error', reject);
    stream.resume();
    stream.end(body);
  });
}

/**
 * gRPC-Web calls from one client cannot take gRPC-Web away from the others: all of them share
 * one in-memory HTTP/2 session into the proxy.
 */
describe('gRPC proxy: gRPC-Web abuse without a key', () => {
  let e2e: GrpcProxyE2E;
  beforeAll(async () => {
    e2e = await startGrpcProxyE2E();
  });
  afterAll(async () => {
    await e2e.stop();
  });

  it('four keyless 4 MiB bodies, one after another, are each UNAUTHENTICATED, and a valid key is served afterwards', async () => {
    const key = await e2e.key();
    for (let i = 0; i < 4; i++) {
      expect(await webCall(e2e.host, frame(4 * 1024 * 1024))).toEqual({ status: '16', message: 'Missing API key' });
    }
    // Before: the refused bodies' unsent bytes stayed counted against the shared session's
    // memory (10 MB), and every later gRPC-Web call was reset: UNAVAILABLE until a restart.
    expect(await webCall(e2e.host, frame(0), key)).toEqual({ status: '0', message: 'OK' });
  });

  it('a call without a key is refused on its headers, before its body is read: the answer comes while the body is still being sent', async () => {
    // Before: the whole body (up to 16 MiB, for each of up to 1,000 streams of a connection) was
    // held in memory, and only then was the key looked at.
    const { answer, request } = await answerToUnfinishedBody(e2e.host, frame(1024 * 1024).subarray(0, 1024 * 1024));
    expect(request.writableEnded).toBe(false);
    request.destroy();
    expect(answer).toEqual({ status: '16', message: 'Missing API key' });

    const session = connect(`http://${e2e.host}`);
    try {
      expect(await answerToUnfinishedBodyH2(session, frame(1024 * 1024).subarray(0, 1024 * 1024))).toEqual({ status: '16', message: 'Missing API key' });
    } finally {
      session.destroy();
    }
  });

  it('a message over the proxy\'s 4 MiB limit (under simnet\'s 64 MiB) is refused alike over native gRPC and gRPC-Web; one at the limit is served', async () => {
    const key = await e2e.key();
    const refused = { status: '8', message: `PAYLOAD_TOO_LARGE: The request message is ${MAX_REQUEST_MESSAGE_BYTES + 1} bytes; at most ${MAX_REQUEST_MESSAGE_BYTES} are accepted.` };
    const session = connect(`http://${e2e.host}`);
    try {
      // Before: the proxy forwarded a message of any size on both transports, up to the node's limit.
      expect(await nativeCall(session, requestOfSize(MAX_REQUEST_MESSAGE_BYTES + 1), key)).toEqual(refused);
      expect(await webCall(e2e.host, requestOfSize(MAX_REQUEST_MESSAGE_BYTES + 1), key)).toEqual(refused);
      expect(await nativeCall(session, requestOfSize(MAX_REQUEST_MESSAGE_BYTES), key)).toEqual({ status: '0', message: 'OK' });
      expect(await webCall(e2e.host, requestOfSize(MAX_REQUEST_MESSAGE_BYTES), key)).toEqual({ status: '0', message: 'OK' });
    } finally {
      session.destroy();
    }
  });
});
