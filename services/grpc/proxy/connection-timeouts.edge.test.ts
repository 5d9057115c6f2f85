import http2 from 'node:http2';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestPipeline } from '../../pipeline/index.js';
import { createGrpcProxy, type GrpcProxy } from './index.js';

/**
 * The gRPC port's connections are bounded in time like the HTTP port's: a connection that never
 * sends the HTTP/2 preface, and an HTTP/2 connection with no call open, are closed; a connection
 * with a call open is not. Before, both idle kinds were kept forever (one file descriptor each,
 * for anyone, without a key). The timeouts are short so the test waits for closes, never for time.
 */
describe('gRPC proxy: connection timeouts', () => {
  let proxy: GrpcProxy;
  let port: number;
  beforeAll(async () => {
    // A call never gets past authentication: it stays open as long as its client keeps it.
    const pipeline = { authenticateKey: () => new Promise(() => undefined) } as unknown as RequestPipeline;
    proxy = createGrpcProxy({ pipeline, upstreams: new Map(), networkOf: () => 'mainnet', handshakeTimeoutMs: 150, idleTimeoutMs: 300 });
    ({ port } = await proxy.listen(0, '127.0.0.1'));
  });
  afterAll(async () => { await proxy.close(); });

  const closed = (emitter: { once(event: 'close', listener: () => void): unknown }) => new Promise<void>((resolve) => { emitter.once('close', () => resolve()); });
  const session = () => {
    const client = http2.connect(`http://127.0.0.1:${port}`);
    client.on('error', () => undefined);
    return client;
  };

  it('closes a connection that sends nothing, and one that sends half a preface', async () => {
    const silent = net.connect(port, '127.0.0.1');
    const half = net.connect(port, '127.0.0.1', () => half.write('PRI * HTTP/2.0\r\n'));
    for (const socket of [silent, half]) socket.on('error', () => undefined);
    await Promise.all([closed(silent), closed(half)]);
    expect([silent.destroyed, half.destroyed]).toEqual([true, true]);
  });

  it('closes an idle HTTP/2 connection whose client keeps sending PINGs (they do not count as activity)', async () => {
    const pinging = session();
    const pings = setInterval(() => { if (!pinging.closed) pinging.ping(() => undefined); }, 50);
    await closed(pinging);
    clearInterval(pings);
    expect(pinging.destroyed).toBe(true);
  });

  it('closes an HTTP/2 connection with no call open, and keeps one whose call is open until the call ends', async () => {
    const busy = session();
    const call = busy.request({ ':method': 'POST', ':path': '/sui.rpc.v2.LedgerService/GetServiceInfo', 'content-type': 'application/grpc' }, { endStream: false });
    call.on('error', () => undefined);
    await new Promise<void>((resolve) => { busy.once('remoteSettings', () => resolve()); });
    let busyClosed = false;
    const busyClose = closed(busy).then(() => { busyClosed = true; });
    // Two idle sessions opened one after the other, after the busy one went quiet: when the second
    // is closed for idleness, the busy session has been idle at least as long, twice over.
    const idle = session();
    await closed(idle);
    const idleAgain = session();
    await closed(idleAgain);
    expect([idle.destroyed, idleAgain.destroyed]).toEqual([true, true]);
    expect(busyClosed).toBe(false);
    call.close(http2.constants.NGHTTP2_CANCEL);
    await busyClose;
    expect(busy.destroyed).toBe(true);
  });
});

/**
 * A connection with a call open lives as long as the call, and PINGs do not keep an idle one
 * (Node's session timer ignores them: the idle case above holds for a pinging client too), so the
 * bound on sockets is a per-client cap: past it a new connection is closed before it is read.
 */
describe('gRPC proxy: connections per client', () => {
  let proxy: GrpcProxy;
  let port: number;
  beforeAll(async () => {
    const pipeline = { authenticateKey: () => new Promise(() => undefined) } as unknown as RequestPipeline;
    proxy = createGrpcProxy({ pipeline, upstreams: new Map(), networkOf: () => 'mainnet', maxConnectionsPerClient: 3 });
    ({ port } = await proxy.listen(0, '127.0.0.1'));
  });
  afterAll(async () => { await proxy.close(); });

  /** A session and whether the server took it (sent its settings) or closed it first. */
  const connect = () => {
    const client = http2.connect(`http://127.0.0.1:${port}`);
    client.on('error', () => undefined);
    const outcome = new Promise<'served' | 'closed'>((resolve) => {
      client.once('remoteSettings', () => resolve('served'));
      client.once('close', () => resolve('closed'));
    });
    return { client, outcome };
  };

  it('serves 3 connections of one client, closes the 4th at once, serves a new one after one of the 3 closed', async () => {
    const held = [connect(), connect(), connect()];
    expect(await Promise.all(held.map((c) => c.outcome))).toEqual(['served', 'served', 'served']);
    const fourth = connect();
    expect(await fourth.outcome).toBe('closed');
    const first = held[0]!.client;
    const gone = new Promise<void>((resolve) => { first.once('close', () => resolve()); });
    first.destroy();
    await gone;
    // The server sees the close a moment after the client: retry until it has (never more than the cap is served).
    let again = connect();
    while ((await again.outcome) === 'closed') again = connect();
    expect(again.client.closed).toBe(false);
    for (const c of [...held, again]) c.client.destroy();
  });
});

