import { connect, constants, type ClientHttp2Session, type IncomingHttpHeaders } from 'node:http2';
import { GrpcTypes } from '@mysten/sui/grpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeTextBody, TRAILER_FLAG } from '../web-mux/grpc-web-framing.js';
import { startGrpcProxyE2E, type GrpcProxyE2E } from '../../../test/support/grpc-proxy-e2e.js';

const GET_SERVICE_INFO = '/sui.rpc.v2.LedgerService/GetServiceInfo';
/** An empty GetServiceInfoRequest: flag 0, length 0. */
const EMPTY_FRAME = Buffer.alloc(5);

interface Answer {
  headers: IncomingHttpHeaders;
  trailers: IncomingHttpHeaders;
  body: Buffer;
}

/** One POST on an open HTTP/2 session (h2c), the whole answer read. */
function post(session: ClientHttp2Session, headers: Record<string, string>, body: Buffer | string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ [constants.HTTP2_HEADER_METHOD]: 'POST', [constants.HTTP2_HEADER_PATH]: GET_SERVICE_INFO, ...headers });
    let responseHeaders: IncomingHttpHeaders = {};
    let trailers: IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    stream.on('response', (received) => (responseHeaders = received));
    stream.on('trailers', (received) => (trailers = received));
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve({ headers: responseHeaders, trailers, body: Buffer.concat(chunks) }));
    stream.on('error', reject);
    stream.end(body);
  });
}

/** gRPC-Web body → its messages and the trailer frame's fields. */
function frames(body: Buffer): { messages: Buffer[]; trailers: Record<string, string> } {
  const messages: Buffer[] = [];
  const trailers: Record<string, string> = {};
  let rest = body;
  while (rest.length >= 5) {
    const length = rest.readUInt32BE(1);
    const payload = rest.subarray(5, 5 + length);
    if (rest[0]! & TRAILER_FLAG) {
      for (const line of payload.toString('utf8').split('\r\n').filter(Boolean)) {
        const colon = line.indexOf(':');
        trailers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
    } else {
      messages.push(payload);
    }
    rest = rest.subarray(5 + length);
  }
  expect(rest.length).toBe(0);
  return { messages, trailers };
}

/**
 * gRPC-Web over HTTP/2 (h2c here; browsers speak it over TLS): `application/grpc-web` and
 * `application/grpc-web-text` on the proxy's one port, on the same HTTP/2 connection as a native
 * gRPC call, answered with gRPC-Web framing (trailers in the body) and CORS headers.
 */
describe('gRPC proxy: gRPC-Web over HTTP/2 on the native port', () => {
  let e2e: GrpcProxyE2E;
  let session: ClientHttp2Session;
  beforeAll(async () => {
    e2e = await startGrpcProxyE2E();
    session = connect(`http://${e2e.host}`);
  });
  afterAll(async () => {
    session.close();
    await e2e.stop();
  });

  const chainIdOf = (message: Buffer) => GrpcTypes.GetServiceInfoResponse.fromBinary(message).chainId;

  it('application/grpc-web: the message, then a trailer frame with grpc-status 0, on the same connection as native gRPC', async () => {
    const native = await post(session, { 'content-type': 'application/grpc', te: 'trailers', 'x-api-key': e2e.gateway.adminKey }, EMPTY_FRAME);
    expect(native.headers[':status']).toBe(200);
    expect(native.trailers['grpc-status']).toBe('0');

    const web = await post(session, { 'content-type': 'application/grpc-web+proto', 'x-grpc-web': '1', 'x-api-key': e2e.gateway.adminKey }, EMPTY_FRAME);
    expect(web.headers[':status']).toBe(200);
    expect(web.headers['content-type']).toBe('application/grpc-web+proto');
    const { messages, trailers } = frames(web.body);
    expect(trailers['grpc-status']).toBe('0');
    expect(messages.map(chainIdOf)).toEqual([e2e.simnet!.chainId]);
    // The same answer as the native call's.
    expect(chainIdOf(frames(native.body).messages[0]!)).toBe(e2e.simnet!.chainId);
  });

  it('application/grpc-web-text: base64 request and response', async () => {
    const web = await post(session, { 'content-type': 'application/grpc-web-text', 'x-grpc-web': '1', 'x-api-key': e2e.gateway.adminKey }, EMPTY_FRAME.toString('base64'));
    expect(web.headers[':status']).toBe(200);
    expect(web.headers['content-type']).toBe('application/grpc-web-text+proto');
    expect(web.body.toString('ascii')).toMatch(/^[A-Za-z0-9+/=]+$/);
    const { messages, trailers } = frames(decodeTextBody(web.body));
    expect(trailers['grpc-status']).toBe('0');
    expect(messages.map(chainIdOf)).toEqual([e2e.simnet!.chainId]);
  });

  it('refusals keep the gRPC-Web framing: no key is UNAUTHENTICATED in the answer', async () => {
    const web = await post(session, { 'content-type': 'application/grpc-web+proto', 'x-grpc-web': '1' }, EMPTY_FRAME);
    expect(web.headers[':status']).toBe(200);
    // A trailers-only refusal: the status is in the headers and repeated in a trailer frame.
    expect(web.headers['grpc-status']).toBe('16');
    const { messages, trailers } = frames(web.body);
    expect(messages).toEqual([]);
    expect(trailers['grpc-status']).toBe('16');
    expect(decodeURIComponent(trailers['grpc-message']!)).toBe('Missing API key');
  });

  it('a browser origin: CORS headers, and an origin-restricted key works from its origin only', async () => {
    const key = await e2e.key({ allowedOrigins: ['https://app.example.com'] });
    const from = (origin: string) => post(session, { 'content-type': 'application/grpc-web+proto', 'x-grpc-web': '1', 'x-api-key': key, origin }, EMPTY_FRAME);
    const allowed = await from('https://app.example.com');
    expect(allowed.headers['access-control-allow-origin']).toBe('*');
    expect(allowed.headers['access-control-expose-headers']).toEqual(expect.stringContaining('grpc-status'));
    expect(frames(allowed.body).trailers['grpc-status']).toBe('0');
    const refused = await from('https://evil.example.com');
    expect(refused.headers['grpc-status']).toBe('7');
    expect(decodeURIComponent(String(refused.headers['grpc-message']))).toMatch(/^ORIGIN_NOT_ALLOWED: /);
  });
});
