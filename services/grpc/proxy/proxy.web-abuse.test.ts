import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGrpcProxyE2E, type GrpcProxyE2E } from '../../../test/support/grpc-proxy-e2e.js';

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
});
