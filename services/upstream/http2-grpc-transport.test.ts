import { SuiGrpcClient } from '@mysten/sui/grpc';
import { RpcError, type RpcTransport } from '@protobuf-ts/runtime-rpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKillableRelay } from '../../test/support/killable-relay.js';
import { freePort } from '../../test/support/processes.js';
import { SCRIPTED_DETAILS, startScriptedGrpcServer } from '../../test/support/scripted-grpc-server.js';
import { startSimnet } from '../simnet/index.js';
import { fromGrpcError } from './errors.js';
import { createGrpcTransport } from './grpc-channel.js';
import { RawGrpcChannel } from './grpc-raw-channel.js';
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

describe.each(['h2', 'grpc-js'] as const)('%s transport when the upstream goes away', (kind) => {
  let simnet: Awaited<ReturnType<typeof startSimnet>>;
  beforeAll(async () => { simnet = await startSimnet({ seed: 'h2-transport-kill', checkpointIntervalMs: 50, transactionsPerCheckpoint: 0 }); });
  afterAll(async () => { await simnet.stop(); });

  it('fails a call to a port nothing listens on with UNAVAILABLE', async () => {
    const { transport, close } = transportFor(kind, `http://127.0.0.1:${await freePort()}`);
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
  let scripted: Awaited<ReturnType<typeof startScriptedGrpcServer>>;
  let client: SuiGrpcClient;
  let close: () => void;
  const info = (script: string, options: { timeout?: number; abort?: AbortSignal } = {}) =>
    client.ledgerService.getServiceInfo({}, { meta: { 'x-scripted': script, 'x-echo': 'from-meta' }, ...options }).response;
  beforeAll(async () => {
    scripted = await startScriptedGrpcServer();
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
    expect(error.meta['grpc-status-details-bin']).toBe(SCRIPTED_DETAILS.toString('base64'));
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
