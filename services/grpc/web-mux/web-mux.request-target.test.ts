import net from 'node:net';
import * as grpc from '@grpc/grpc-js';
import { GrpcTypes } from '@mysten/sui/grpc';
import { adaptService } from '@protobuf-ts/grpc-backend';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGrpcWebMux, type GrpcWebMux } from './index.js';

let server: grpc.Server;
let mux: GrpcWebMux;
let port: number;

beforeAll(async () => {
  server = new grpc.Server();
  const ledger: Record<string, (...args: never[]) => Promise<unknown>> = Object.fromEntries(GrpcTypes.LedgerService.methods.map((method) => [method.localName, async () => ({})]));
  ledger.getServiceInfo = async () => ({ chainId: 'muxed' });
  server.addService(...adaptService(GrpcTypes.LedgerService, ledger));
  mux = createGrpcWebMux({ grpcServer: server });
  port = (await mux.listen(0, '127.0.0.1')).port;
});
afterAll(async () => {
  await mux.close();
  server.forceShutdown();
});

/** One raw gRPC-Web POST (an empty GetServiceInfoRequest frame); the grpc-status and grpc-message the answer carries. */
function post(target: string, host = 'x'): Promise<{ status: string | undefined; message: string | undefined }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      resolve({ status: /grpc-status: ?(\d+)/.exec(text)?.[1], message: /grpc-message: ?([^\r]*)/.exec(text)?.[1] });
    });
    socket.write(`POST ${target} HTTP/1.1\r\nhost: ${host}\r\ncontent-type: application/grpc-web+proto\r\ncontent-length: 5\r\nconnection: close\r\n\r\n`);
    socket.write(Buffer.alloc(5));
  });
}

/**
 * The request target of a gRPC-Web POST as HTTP/1.1 allows it. The absolute form
 * (`POST http://host/pkg.Service/Method`, which a server must accept: RFC 9112 3.2.2) and a
 * target or Host that is no path or authority were passed to the internal HTTP/2 session as is,
 * which reset the stream: 14 UNAVAILABLE "upstream closed the stream", a status clients retry,
 * for a call that could never succeed (or, in the absolute form, should have).
 */
describe('gRPC-Web request targets', () => {
  it('the absolute form is served as its path', async () => {
    expect(await post(`http://127.0.0.1:${port}/sui.rpc.v2.LedgerService/GetServiceInfo`)).toEqual({ status: '0', message: 'OK' });
  });

  it.each([['*']])('a target that is no path (%s) is 12 UNIMPLEMENTED, not a retryable 14', async (target) => {
    expect(await post(target)).toEqual({ status: '12', message: encodeURIComponent(`The request target ${target} names no method.`) });
  });

  it('a Host that is no authority is 3 INVALID_ARGUMENT, not a retryable 14', async () => {
    expect(await post('/sui.rpc.v2.LedgerService/GetServiceInfo', 'a b')).toEqual({ status: '3', message: encodeURIComponent('The Host header a b is not a host name.') });
  });
});
