import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { RawGrpcChannel } from './grpc-raw-channel.js';

describe('RawGrpcChannel', () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    // Last opened, first closed: the channel's session before the server that waits for it.
    for (const close of closers.splice(0).reverse()) await close();
  });

  /** An h2c server on `host` answering every stream with its :authority; its port. */
  async function authorityEcho(host: string): Promise<number> {
    const server = http2.createServer();
    server.on('stream', (stream, headers) => stream.respond({ ':status': 200, 'x-authority': String(headers[':authority']) }, { endStream: true }));
    await new Promise<void>((listening) => server.listen(0, host, listening));
    closers.push(() => new Promise<void>((closed) => server.close(() => closed())));
    return (server.address() as AddressInfo).port;
  }

  async function answerOf(channel: RawGrpcChannel): Promise<http2.IncomingHttpHeaders> {
    const stream = channel.request({ ':method': 'POST', ':path': '/sui.rpc.v2.LedgerService/GetServiceInfo', ':authority': channel.authority });
    stream.end();
    const headers = await new Promise<http2.IncomingHttpHeaders>((answered, failed) => {
      stream.once('response', answered);
      stream.once('error', failed);
    });
    stream.resume();
    return headers;
  }

  it.each([
    ['an IPv4 address', '127.0.0.1', (port: number) => `http://127.0.0.1:${port}`, (port: number) => `127.0.0.1:${port}`],
    ['an IPv6 literal (before: its brackets doubled, and the constructor threw)', '::1', (port: number) => `http://[::1]:${port}`, (port: number) => `[::1]:${port}`],
  ])('reaches an upstream named by %s', async (_name, host, url, authority) => {
    const port = await authorityEcho(host);
    const channel = new RawGrpcChannel(url(port));
    closers.push(async () => channel.close());
    expect(channel.authority).toBe(authority(port));
    const headers = await answerOf(channel);
    expect([headers[':status'], headers['x-authority']]).toEqual([200, authority(port)]);
  });

  it('names the authority as HTTP does: the default port of the scheme left out, any other kept', () => {
    expect(new RawGrpcChannel('https://[2001:db8::1]').authority).toBe('[2001:db8::1]');
    expect(new RawGrpcChannel('https://[2001:db8::1]:8443').authority).toBe('[2001:db8::1]:8443');
    expect(new RawGrpcChannel('http://fullnode.example').authority).toBe('fullnode.example');
  });
});
