import http from 'node:http';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGrpcProxyE2E, type GrpcProxyE2E } from '../../../test/support/grpc-proxy-e2e.js';
import { MAX_REQUEST_MESSAGE_BYTES } from './request-message-limit.js';

const bytes = (value: Buffer) => value;
const ECHO_SIZE = '/sui.rpc.v2.FutureService/EchoSize';

/** A node without a receive limit of its own (grpc-js's 4 MiB switched off): only the proxy's limit can refuse. It answers each request's size. */
async function startUnlimitedUpstream() {
  const received: number[] = [];
  const server = new grpc.Server({ 'grpc.max_receive_message_length': -1 });
  server.register(ECHO_SIZE, (call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) => {
    received.push(call.request.length);
    callback(null, Buffer.from(String(call.request.length)));
  }, bytes, bytes, 'unary');
  const port = await new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
  return { received, url: `http://127.0.0.1:${port}`, stop: () => server.forceShutdown() };
}

interface Answer {
  status: string | undefined;
  message: string | undefined;
}

/** One gRPC-Web POST (binary) over HTTP/1.1; the status from the headers (trailers-only) or the trailer frame. */
function webCall(host: string, message: Buffer, key: string): Promise<Answer> {
  const [hostname, port] = host.split(':');
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(message.length, 1);
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: hostname, port: Number(port), method: 'POST', path: ECHO_SIZE, agent: false,
      headers: { 'content-type': 'application/grpc-web+proto', 'x-api-key': key },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('latin1');
        const status = res.headers['grpc-status'] ?? /grpc-status: ?(\d+)/.exec(text)?.[1];
        const grpcMessage = res.headers['grpc-message'] ?? /grpc-message: ?([^\r]*)/.exec(text)?.[1];
        resolve({ status: status === undefined ? undefined : String(status), message: grpcMessage === undefined ? undefined : decodeURIComponent(String(grpcMessage)) });
      });
    });
    // The proxy may answer (and close) before the whole body is sent: the answer still arrives.
    req.on('error', reject);
    req.end(Buffer.concat([prefix, message]));
  });
}

describe(`gRPC proxy: request messages up to ${MAX_REQUEST_MESSAGE_BYTES} bytes (4 MiB)`, () => {
  let upstream: Awaited<ReturnType<typeof startUnlimitedUpstream>>;
  let e2e: GrpcProxyE2E;
  let client: grpc.Client;
  const remaining = async () => (await e2e.metering.ledger.balance(e2e.gateway.organizationId)).remaining;
  const nativeCall = (request: Buffer) => new Promise<{ error?: grpc.ServiceError; response?: Buffer }>((resolve) => {
    const metadata = new grpc.Metadata();
    metadata.set('x-api-key', e2e.gateway.adminKey);
    client.makeUnaryRequest(ECHO_SIZE, bytes, bytes, request, metadata, (error, response) => resolve({ ...(error ? { error } : {}), ...(response ? { response } : {}) }));
  });
  const refusal = (size: number) => `PAYLOAD_TOO_LARGE: The request message is ${size} bytes; at most ${MAX_REQUEST_MESSAGE_BYTES} are accepted.`;

  beforeAll(async () => {
    upstream = await startUnlimitedUpstream();
    e2e = await startGrpcProxyE2E({ upstreamUrl: upstream.url });
    client = new grpc.Client(e2e.host, grpc.credentials.createInsecure());
  });
  afterAll(async () => {
    client.close();
    await e2e.stop();
    upstream.stop();
  });

  it('native gRPC (grpc-js): a message at the limit is forwarded; one byte more is RESOURCE_EXHAUSTED PAYLOAD_TOO_LARGE, never forwarded, charged as a 4xx (1 credit)', async () => {
    expect(await nativeCall(Buffer.alloc(MAX_REQUEST_MESSAGE_BYTES))).toEqual({ response: Buffer.from(String(MAX_REQUEST_MESSAGE_BYTES)) });
    expect(upstream.received).toEqual([MAX_REQUEST_MESSAGE_BYTES]);
    const before = await remaining();
    const over = await nativeCall(Buffer.alloc(MAX_REQUEST_MESSAGE_BYTES + 1));
    expect({ code: over.error?.code, details: over.error?.details }).toEqual({ code: grpc.status.RESOURCE_EXHAUSTED, details: refusal(MAX_REQUEST_MESSAGE_BYTES + 1) });
    expect(upstream.received).toEqual([MAX_REQUEST_MESSAGE_BYTES]);
    expect(await remaining()).toBe(before - 1);
  });

  it('gRPC-Web: the same limit and the same answer', async () => {
    const key = await e2e.key();
    upstream.received.length = 0;
    expect(await webCall(e2e.host, Buffer.alloc(MAX_REQUEST_MESSAGE_BYTES), key)).toEqual({ status: '0', message: 'OK' });
    expect(await webCall(e2e.host, Buffer.alloc(MAX_REQUEST_MESSAGE_BYTES + 1), key)).toEqual({ status: String(grpc.status.RESOURCE_EXHAUSTED), message: refusal(MAX_REQUEST_MESSAGE_BYTES + 1) });
    expect(upstream.received).toEqual([MAX_REQUEST_MESSAGE_BYTES]);
  });
});
