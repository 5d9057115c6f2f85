import http2 from 'node:http2';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { GrpcTypes, SuiGrpcClient } from '@mysten/sui/grpc';
import { RpcError, type RpcTransport } from '@protobuf-ts/runtime-rpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimnet } from '../simnet/index.js';
import { fromGrpcError } from './errors.js';
import { createGrpcTransport } from './grpc-channel.js';
import { RawGrpcChannel } from './grpc-raw-channel.js';
import { frameMessage } from './grpc-wire.js';
import { Http2GrpcTransport } from './http2-grpc-transport.js';
import type { UpstreamGrpcTransport } from './types.js';

/** The transport under test and, for parity, grpc-js's, built as SuiUpstream builds them. */
function transportFor(kind: UpstreamGrpcTransport, grpcUrl: string): { transport: RpcTransport; close: () => void } {
  if (kind === 'grpc-js') {
    const transport = createGrpcTransport(grpcUrl);
    return { transport, close: () => transport.close() };
  }
  const channel = new RawGrpcChannel(grpcUrl, { keepalive: { intervalMs: 30_000, timeoutMs: 10_000 } });
  return { transport: new Http2GrpcTransport(channel), close: () => channel.close() };
}

const failure = (promise: PromiseLike<unknown>): Promise<RpcError> =>
  Promise.resolve(promise).then(() => { throw new Error('expected the call to fail'); }, (error: unknown) => {
    expect(error).toBeInstanceOf(RpcError);
    return error as RpcError;
  });

/** Ports that nothing listens on (a server bound, then closed). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** gRPC's percent-encoding of `grpc-message`, as a server sends it: bytes outside printable ASCII (and `%`) as %XX. */
const percentEncoded = (message: string) =>
  [...Buffer.from(message, 'utf8')].map((b) => (b >= 0x20 && b <= 0x7e && b !== 0x25 ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase()}`)).join('');

const SERVICE_INFO = '/sui.rpc.v2.LedgerService/GetServiceInfo';
const DETAILS = Buffer.from([8, 9, 18, 4, 110, 111, 112, 101]);

/**
 * A plain `node:http2` gRPC server that answers GetServiceInfo the way the request's
 * `x-scripted` metadata asks: the answers a Sui node or a proxy in front of it can give that
 * simnet does not (an 8 MiB message, a length prefix over the limit, status details, HTTP 503,
 * a hang, GOAWAY after each answer).
 */
async function startScriptedServer() {
  const seen = { sessions: 0, cancelled: 0, timeouts: [] as string[] };
  const server = http2.createServer();
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (session) => {
    seen.sessions += 1;
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  server.on('stream', (stream, headers) => {
    const script = String(headers['x-scripted'] ?? 'ok');
    seen.timeouts.push(String(headers['grpc-timeout'] ?? ''));
    stream.on('error', () => undefined);
    stream.on('close', () => { if (stream.rstCode === http2.constants.NGHTTP2_CANCEL) seen.cancelled += 1; });
    const answer = (info: { chain: string }) => {
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
      stream.end(frameMessage(GrpcTypes.GetServiceInfoResponse.toBinary({ chainId: 'scripted', chain: info.chain })));
    };
    stream.resume();
    stream.on('end', () => {
      if (headers[':path'] !== SERVICE_INFO) {
        stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '12' }, { endStream: true });
        return;
      }
      switch (script) {
        case 'large': answer({ chain: 'x'.repeat(8 * 1024 * 1024) }); return;
        case 'oversize': {
          // Only the prefix: it announces a message one byte over the 64 MiB limit.
          const prefix = Buffer.alloc(5);
          prefix.writeUInt32BE(64 * 1024 * 1024 + 1, 1);
          stream.respond({ ':status': 200, 'content-type': 'application/grpc' });
          stream.write(prefix);
          return;
        }
        case 'details':
          stream.respond({
            ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '9',
            'grpc-message': percentEncoded('no: not now — über'),
            // Unpadded, as some servers send it.
            'grpc-status-details-bin': DETAILS.toString('base64').replace(/=+$/, ''),
            'x-node-trailer': 'kept',
          }, { endStream: true });
          return;
        case 'http503':
          stream.respond({ ':status': 503, 'content-type': 'text/plain' });
          stream.end('overloaded');
          return;
        case 'hang': return;
        case 'goaway':
          answer({ chain: 'once' });
          // GOAWAY now: this stream finishes, the next call must come on a new connection.
          stream.session?.close();
          return;
        default: answer({ chain: String(headers['x-echo'] ?? 'ok') });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    seen,
    url: `http://127.0.0.1:${port}`,
    stop: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const session of sessions) session.destroy();
    }),
  };
}

describe.each(['h2', 'grpc-js'] as const)('%s transport against simnet', (kind) => {
  let simnet: Awaited<ReturnType<typeof startSimnet>>;
  let client: SuiGrpcClient;
  let close: () => void;
  beforeAll(async () => {
    simnet = await startSimnet({ seed: 'h2-transport', checkpointIntervalMs: 50, transactionsPerCheckpoint: 0 });
    const built = transportFor(kind, simnet.grpcUrl);
    close = built.close;
    client = new SuiGrpcClient({ network: 'localnet', transport: built.transport });
  });
  afterAll(async () => {
    close();
    await simnet.stop();
  });

  it('makes unary calls', async () => {
    const { response } = await client.ledgerService.getServiceInfo({});
    expect(response.chainId).toBe(simnet.chainId);
    const [alice] = simnet.accounts;
    const balance = await client.stateService.getBalance({ owner: alice!.address, coinType: '0x2::sui::SUI' }).response;
    expect(balance.balance?.balance).toBeGreaterThan(0n);
  });

  it('reports a node error status with its code and message, as the same kind', async () => {
    const error = await failure(client.ledgerService.getObject({ objectId: 'not-an-id' }).response);
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toMatch(/\S/);
    expect(fromGrpcError('localnet/grpc', 'GetObject', error).kind).toBe('invalid_argument');
    const missing = await failure(client.ledgerService.getObject({ objectId: `0x${'ab'.repeat(32)}` }).response);
    expect(missing.code).toBe('NOT_FOUND');
  });

  it('streams SubscribeCheckpoints in order and ends the stream when aborted', async () => {
    const abort = new AbortController();
    const call = client.subscriptionService.subscribeCheckpoints({ readMask: { paths: ['sequence_number'] } }, { abort: abort.signal });
    const seen: bigint[] = [];
    const ended = (async () => {
      for await (const message of call.responses) {
        seen.push(message.cursor!);
        if (seen.length === 3) abort.abort();
      }
    })();
    const error = await failure(ended);
    expect(error.code).toBe('CANCELLED');
    expect(fromGrpcError('localnet/grpc', 'SubscribeCheckpoints', error).kind).toBe('cancelled');
    expect(seen).toHaveLength(3);
    expect(seen[1]).toBe(seen[0]! + 1n);
    expect(seen[2]).toBe(seen[1]! + 1n);
  });

  it('ends a stream past its deadline with DEADLINE_EXCEEDED', async () => {
    const call = client.subscriptionService.subscribeCheckpoints({ readMask: { paths: ['sequence_number'] } }, { timeout: 300 });
    let messages = 0;
    const error = await failure((async () => { for await (const _ of call.responses) messages += 1; })());
    expect(error.code).toBe('DEADLINE_EXCEEDED');
    expect(fromGrpcError('localnet/grpc', 'SubscribeCheckpoints', error).kind).toBe('timeout');
    expect(messages).toBeGreaterThan(0);
  });
});

/**
 * A TCP relay in front of simnet that can drop every connection and refuse new ones, as an
 * upstream process that is killed (the kernel closes its sockets), then listen again on the
 * same port, as the restarted process; or stop forwarding with the connections left open, as a
 * network path that silently dies.
 */
async function startKillableRelay(target: string) {
  const { hostname, port: targetPort } = new URL(target);
  const sockets = new Set<net.Socket>();
  const pairs: [net.Socket, net.Socket][] = [];
  const server = net.createServer((client) => {
    const upstream = net.connect({ host: hostname, port: Number(targetPort) });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.once('close', () => sockets.delete(socket));
    }
    client.pipe(upstream).pipe(client);
    pairs.push([client, upstream]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    kill: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    }),
    revive: () => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve)),
    blackhole: () => {
      for (const [client, upstream] of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    },
    stop: () => new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      if (server.listening) server.close(() => resolve());
      else resolve();
    }),
  };
}

describe.each(['h2', 'grpc-js'] as const)('%s transport when the upstream goes away', (kind) => {
  let simnet: Awaited<ReturnType<typeof startSimnet>>;
  beforeAll(async () => { simnet = await startSimnet({ seed: 'h2-transport-kill', checkpointIntervalMs: 50, transactionsPerCheckpoint: 0 }); });
  afterAll(async () => { await simnet.stop(); });

  it('fails a call to a port nothing listens on with UNAVAILABLE', async () => {
    const { transport, close } = transportFor(kind, `http://127.0.0.1:${await closedPort()}`);
    const client = new SuiGrpcClient({ network: 'localnet', transport });
    const error = await failure(client.ledgerService.getServiceInfo({}, { timeout: 5_000 }).response);
    close();
    expect(error.code).toBe('UNAVAILABLE');
    expect(fromGrpcError('localnet/grpc', 'GetServiceInfo', error).isTransportFailure).toBe(true);
  });

  it('fails a call in flight with UNAVAILABLE when the upstream is killed, refuses while it is down, and reconnects once it is back', async () => {
    const relay = await startKillableRelay(simnet.grpcUrl);
    const { transport, close } = transportFor(kind, relay.url);
    const client = new SuiGrpcClient({ network: 'localnet', transport });
    try {
      const call = client.subscriptionService.subscribeCheckpoints({ readMask: { paths: ['sequence_number'] } }, { timeout: 10_000 });
      const ended = (async () => {
        for await (const _ of call.responses) void relay.kill();
      })();
      const error = await failure(ended);
      expect(error.code).toBe('UNAVAILABLE');
      expect(fromGrpcError('localnet/grpc', 'SubscribeCheckpoints', error).isTransportFailure).toBe(true);

      const down = await failure(client.ledgerService.getServiceInfo({}, { timeout: 1_000 }).response);
      expect(down.code).toBe('UNAVAILABLE');

      await relay.revive();
      // grpc-js reconnects after its backoff (at most 2 s as configured); ours on the next call.
      await expect.poll(async () => (await client.ledgerService.getServiceInfo({}, { timeout: 1_000 }).response.catch(() => undefined))?.chainId,
        { timeout: 5_000, interval: 100 }).toBe(simnet.chainId);
    } finally {
      close();
      await relay.stop();
    }
  });
});

describe('h2 transport keepalive', () => {
  it('fails a call on a connection that stopped answering with UNAVAILABLE once a PING goes unanswered', async () => {
    const simnet = await startSimnet({ seed: 'h2-transport-keepalive', checkpointIntervalMs: 50, transactionsPerCheckpoint: 0 });
    const relay = await startKillableRelay(simnet.grpcUrl);
    // Short intervals for the test; production uses grpc-js's 30 s / 10 s.
    const channel = new RawGrpcChannel(relay.url, { keepalive: { intervalMs: 100, timeoutMs: 200 } });
    const client = new SuiGrpcClient({ network: 'localnet', transport: new Http2GrpcTransport(channel) });
    try {
      const call = client.subscriptionService.subscribeCheckpoints({ readMask: { paths: ['sequence_number'] } }, { timeout: 20_000 });
      const error = await failure((async () => { for await (const _ of call.responses) relay.blackhole(); })());
      expect(error.code).toBe('UNAVAILABLE');
      expect(error.message).toMatch(/keepalive/);
    } finally {
      channel.close();
      await relay.stop();
      await simnet.stop();
    }
  });
});

describe.each(['h2', 'grpc-js'] as const)('%s transport against a scripted HTTP/2 server', (kind) => {
  let scripted: Awaited<ReturnType<typeof startScriptedServer>>;
  let client: SuiGrpcClient;
  let close: () => void;
  const info = (script: string, options: { timeout?: number; abort?: AbortSignal } = {}) =>
    client.ledgerService.getServiceInfo({}, { meta: { 'x-scripted': script, 'x-echo': 'from-meta' }, ...options }).response;
  beforeAll(async () => {
    scripted = await startScriptedServer();
    const built = transportFor(kind, scripted.url);
    close = built.close;
    client = new SuiGrpcClient({ network: 'localnet', transport: built.transport });
  });
  afterAll(async () => {
    close();
    await scripted.stop();
  });

  it('sends the call metadata and reads the answer', async () => {
    expect((await info('echo')).chain).toBe('from-meta');
  });

  it('reads an 8 MiB message that arrives in many DATA frames', async () => {
    expect((await info('large')).chain).toHaveLength(8 * 1024 * 1024);
  });

  it('refuses a message over 64 MiB with RESOURCE_EXHAUSTED', async () => {
    const error = await failure(info('oversize'));
    expect(error.code).toBe('RESOURCE_EXHAUSTED');
    expect(error.message).toMatch(/larger than max/);
  });

  it('keeps the status message, decoded, and grpc-status-details-bin in the error metadata', async () => {
    const error = await failure(info('details'));
    expect(error.code).toBe('FAILED_PRECONDITION');
    expect(error.message).toBe('no: not now — über');
    expect(error.meta['grpc-status-details-bin']).toBe(DETAILS.toString('base64'));
    expect(error.meta['x-node-trailer']).toBe('kept');
    expect(error.meta['grpc-status']).toBeUndefined();
    expect(fromGrpcError('localnet/grpc', 'GetServiceInfo', error).kind).toBe('invalid_argument');
  });

  it('maps HTTP 503 without a gRPC status to UNAVAILABLE', async () => {
    const error = await failure(info('http503'));
    expect(error.code).toBe('UNAVAILABLE');
    expect(fromGrpcError('localnet/grpc', 'GetServiceInfo', error).isTransportFailure).toBe(true);
  });

  it('sends the deadline as grpc-timeout and fails with DEADLINE_EXCEEDED, resetting the stream', async () => {
    const cancelled = scripted.seen.cancelled;
    const error = await failure(info('hang', { timeout: 200 }));
    expect(error.code).toBe('DEADLINE_EXCEEDED');
    expect(scripted.seen.timeouts.at(-1)).toMatch(/^\d+[mu]$/);
    await expect.poll(() => scripted.seen.cancelled).toBe(cancelled + 1);
  });

  it('cancels with RST_STREAM CANCEL and CANCELLED when the caller aborts', async () => {
    const cancelled = scripted.seen.cancelled;
    const abort = new AbortController();
    const received = scripted.seen.timeouts.length;
    const pending = info('hang', { abort: abort.signal, timeout: 10_000 });
    // Abort once the server holds the call, so it is the server that sees the reset.
    await expect.poll(() => scripted.seen.timeouts.length).toBe(received + 1);
    abort.abort();
    const error = await failure(pending);
    expect(error.code).toBe('CANCELLED');
    await expect.poll(() => scripted.seen.cancelled).toBe(cancelled + 1);
  });

  it('opens a new session after the server sends GOAWAY', async () => {
    const sessions = scripted.seen.sessions;
    expect((await info('goaway')).chain).toBe('once');
    await expect.poll(async () => (await info('echo', { timeout: 1_000 }).catch(() => undefined))?.chain, { timeout: 5_000, interval: 50 }).toBe('from-meta');
    expect(scripted.seen.sessions).toBeGreaterThan(sessions);
  });
});
