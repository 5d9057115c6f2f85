import http2 from 'node:http2';
import net from 'node:net';
import { Duplex } from 'node:stream';
import * as grpc from '@grpc/grpc-js';
import { GrpcTypes, SuiGrpcClient } from '@mysten/sui/grpc';
import { adaptService } from '@protobuf-ts/grpc-backend';
import { GrpcTransport } from '@protobuf-ts/grpc-transport';
import type { RpcInputStream, ServerCallContext } from '@protobuf-ts/runtime-rpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGrpcWebMux } from './index.js';
import type { GrpcWebMux } from './index.js';

let server: grpc.Server;
let mux: GrpcWebMux;
let base: string;
let cancelledStreams = 0;

beforeAll(async () => {
  server = new grpc.Server();
  const ledger: Record<string, (...args: never[]) => Promise<unknown>> = Object.fromEntries(GrpcTypes.LedgerService.methods.map((method) => [method.localName, async () => ({})]));
  ledger.getServiceInfo = async () => ({ chainId: 'muxed', epoch: 7n });
  ledger.getObject = async () => {
    const { RpcError } = await import('@protobuf-ts/runtime-rpc');
    throw new RpcError('object 0x1 not found', 'NOT_FOUND');
  };
  const subscriptions: Record<string, (...args: never[]) => Promise<unknown>> = Object.fromEntries(
    GrpcTypes.SubscriptionService.methods.map((method) => [method.localName, async () => undefined]),
  );
  subscriptions.subscribeCheckpoints = async (_request: unknown, responses: RpcInputStream<GrpcTypes.SubscribeCheckpointsResponse>) => {
    for (let cursor = 0n; cursor < 3n; cursor++) await responses.send({ cursor });
  };
  // An endless stream that records when the server sees the client go away.
  subscriptions.subscribeTransactions = async (_request: unknown, responses: RpcInputStream<GrpcTypes.SubscribeTransactionsResponse>, context: ServerCallContext) => {
    while (!context.cancelled) {
      await responses.send({ watermark: { checkpoint: 1n } });
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    cancelledStreams++;
  };
  server.addService(...adaptService(GrpcTypes.LedgerService, ledger));
  server.addService(...adaptService(GrpcTypes.SubscriptionService, subscriptions));
  mux = createGrpcWebMux({ grpcServer: server, fallback: (_req, res) => res.end('fallback') });
  const address = await mux.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${address.port}`;
});

afterAll(async () => {
  await mux.close();
  server.forceShutdown();
});

function frame(message: Uint8Array): Buffer {
  const header = Buffer.alloc(5);
  header.writeUInt32BE(message.length, 1);
  return Buffer.concat([header, Buffer.from(message)]);
}

describe('gRPC and gRPC-Web on one port', () => {
  it('serves native gRPC', async () => {
    const transport = new GrpcTransport({ host: base.slice('http://'.length), channelCredentials: grpc.credentials.createInsecure() });
    const client = new SuiGrpcClient({ network: 'localnet', transport });
    expect((await client.ledgerService.getServiceInfo({})).response.chainId).toBe('muxed');
    transport.close();
  });

  it('hands HTTP/2 connections to the target as the accepted socket itself, even when the preface comes in pieces', async () => {
    // The socket itself (not a JS stream around it) lets Node run HTTP/2 on the native handle.
    const handed: Duplex[] = [];
    const h2 = http2.createServer();
    h2.on('stream', (stream, headers) => stream.respond({ ':status': 200, 'x-path': String(headers[':path']) }, { endStream: true }));
    const direct = createGrpcWebMux({ target: { injectConnection: (connection) => { handed.push(connection); h2.emit('connection', connection); }, destroy: () => h2.close() } });
    const { port } = await direct.listen(0, '127.0.0.1');
    const socket = net.connect(port, '127.0.0.1');
    socket.setNoDelay(true);
    // The client's first write (preface and SETTINGS) reaches the mux split in two.
    let first = true;
    const splitting = new Duplex({
      read() {},
      write(chunk: Buffer, _encoding, callback) {
        if (!first) {
          socket.write(chunk, callback);
          return;
        }
        first = false;
        socket.write(chunk.subarray(0, 10));
        setImmediate(() => socket.write(chunk.subarray(10), callback));
      },
    });
    socket.on('data', (chunk: Buffer) => splitting.push(chunk));
    socket.on('end', () => splitting.push(null));
    const session = http2.connect(`http://127.0.0.1:${port}`, { createConnection: () => splitting });
    try {
      const response = await new Promise<http2.IncomingHttpHeaders>((resolve, reject) => {
        const stream = session.request({ ':path': '/sui.rpc.v2.LedgerService/GetServiceInfo' });
        stream.on('response', resolve);
        stream.on('error', reject);
        stream.resume();
      });
      expect(response[':status']).toBe(200);
      expect(response['x-path']).toBe('/sui.rpc.v2.LedgerService/GetServiceInfo');
      expect(handed).toHaveLength(1);
      expect(handed[0]!.constructor).toBe(net.Socket);
    } finally {
      session.destroy();
      socket.destroy();
      await direct.close();
    }
  });

  it('serves gRPC-Web (binary) to the SDK, with statuses and server streaming', async () => {
    const client = new SuiGrpcClient({ network: 'localnet', baseUrl: base });
    expect((await client.ledgerService.getServiceInfo({})).response.epoch).toBe(7n);
    await expect(client.ledgerService.getObject({ objectId: '0x1' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const cursors: bigint[] = [];
    for await (const message of client.subscriptionService.subscribeCheckpoints({}).responses) cursors.push(message.cursor!);
    expect(cursors).toEqual([0n, 1n, 2n]);
  });

  it('cancels the server call when a gRPC-Web client aborts a stream', async () => {
    const client = new SuiGrpcClient({ network: 'localnet', baseUrl: base });
    const abort = new AbortController();
    const call = client.subscriptionService.subscribeTransactions({}, { abort: abort.signal });
    await expect(
      (async () => {
        for await (const _ of call.responses) abort.abort();
      })(),
    ).rejects.toThrow();
    // The deadline only bounds a hang on a loaded machine.
    const deadline = Date.now() + 20_000;
    while (cancelledStreams === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(cancelledStreams).toBe(1);
  });

  it('serves grpc-web-text with base64 frames and a trailer frame', async () => {
    const body = frame(GrpcTypes.GetServiceInfoRequest.toBinary({})).toString('base64');
    const response = await fetch(`${base}/sui.rpc.v2.LedgerService/GetServiceInfo`, {
      method: 'POST',
      headers: { 'content-type': 'application/grpc-web-text', 'x-grpc-web': '1', origin: 'https://app.example' },
      body,
    });
    expect(response.headers.get('content-type')).toBe('application/grpc-web-text+proto');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-expose-headers')).toContain('grpc-status');
    const text = await response.text();
    const bytes = Buffer.concat(text.split(/(?<==)(?=[^=])/).map((chunk) => Buffer.from(chunk, 'base64')));
    const length = bytes.readUInt32BE(1);
    expect(GrpcTypes.GetServiceInfoResponse.fromBinary(bytes.subarray(5, 5 + length)).chainId).toBe('muxed');
    const trailer = bytes.subarray(5 + length);
    expect(trailer[0]).toBe(0x80);
    expect(trailer.subarray(5).toString()).toContain('grpc-status: 0');
  });

  it('strips a configured path prefix (SDK baseUrl with a path)', async () => {
    const prefixed = createGrpcWebMux({ grpcServer: server, pathPrefix: '/mainnet' });
    const address = await prefixed.listen(0, '127.0.0.1');
    try {
      const client = new SuiGrpcClient({ network: 'localnet', baseUrl: `http://127.0.0.1:${address.port}/mainnet` });
      expect((await client.ledgerService.getServiceInfo({})).response.chainId).toBe('muxed');
    } finally {
      await prefixed.close();
    }
  });

  it('answers UNIMPLEMENTED for gRPC-Web payloads other than protobuf', async () => {
    const response = await fetch(`${base}/sui.rpc.v2.LedgerService/GetServiceInfo`, { method: 'POST', headers: { 'content-type': 'application/grpc-web+json' }, body: '{}' });
    expect(response.headers.get('grpc-status')).toBe('12');
  });

  it('answers CORS preflights and hands other HTTP requests to the fallback', async () => {
    const preflight = await fetch(`${base}/sui.rpc.v2.LedgerService/GetServiceInfo`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-grpc-web,x-api-key' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('x-api-key');
    expect(await (await fetch(`${base}/healthz`)).text()).toBe('fallback');
  });
});
