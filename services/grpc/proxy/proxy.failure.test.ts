import http2 from 'node:http2';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Metrics } from '../../core/index.js';
import { defaultUpstreamPolicy, type SuiUpstream } from '../../upstream/index.js';
import { startGrpcProxyE2E, type GrpcProxyE2E } from '../../../test/support/grpc-proxy-e2e.js';

const bytes = (value: Buffer) => value;

/**
 * An upstream with methods no Sui service has (the proxy must forward them unchanged), each
 * showing one behaviour: echo with trailing metadata, a failure with status details, a hang that
 * records the deadline it was given and its cancellation.
 */
async function startOddUpstream() {
  const seen = { hangDeadlines: [] as number[], hangCancelled: 0 };
  const server = new grpc.Server();
  const unary = (path: string, handle: grpc.handleUnaryCall<Buffer, Buffer>) => server.register(path, handle, bytes, bytes, 'unary');
  unary('/sui.rpc.v2.FutureService/Echo', (call, callback) => {
    const trailer = new grpc.Metadata();
    trailer.set('x-upstream-trailer', `got ${call.metadata.get('x-custom')[0]}`);
    callback(null, Buffer.concat([Buffer.from('echo:'), call.request]), trailer);
  });
  unary('/sui.rpc.v2.FutureService/Fail', (_call, callback) => {
    const metadata = new grpc.Metadata();
    metadata.set('grpc-status-details-bin', Buffer.from([8, 9, 18, 4, 110, 111, 112, 101]));
    callback({ code: grpc.status.FAILED_PRECONDITION, details: 'no: not now', metadata });
  });
  unary('/sui.rpc.v2.FutureService/Internal', (_call, callback) => callback({ code: grpc.status.INTERNAL, details: 'boom' }));
  unary('/sui.rpc.v2.FutureService/Hang', (call) => {
    const deadline = call.getDeadline();
    seen.hangDeadlines.push(deadline instanceof Date ? deadline.getTime() - Date.now() : Number(deadline) - Date.now());
    call.on('cancelled', () => { seen.hangCancelled += 1; });
  });
  const port = await new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
  return { seen, url: `http://127.0.0.1:${port}`, stop: () => server.forceShutdown() };
}

describe('gRPC proxy: transparency, deadlines, cancellation and the breaker', () => {
  let odd: Awaited<ReturnType<typeof startOddUpstream>>;
  let e2e: GrpcProxyE2E;
  let client: grpc.Client;
  const call = (method: string, request: Buffer, options: { deadlineMs?: number; metadata?: Record<string, string>; signal?: AbortSignal } = {}) =>
    new Promise<{ error?: grpc.ServiceError; response?: Buffer; trailers?: grpc.Metadata }>((resolve) => {
      const metadata = new grpc.Metadata();
      metadata.set('x-api-key', e2e.gateway.adminKey);
      for (const [name, value] of Object.entries(options.metadata ?? {})) metadata.set(name, value);
      let trailers: grpc.Metadata | undefined;
      const pending = client.makeUnaryRequest(`/sui.rpc.v2.FutureService/${method}`, bytes, bytes, request, metadata,
        options.deadlineMs ? { deadline: Date.now() + options.deadlineMs } : {},
        (error, response) => setImmediate(() => resolve({ ...(error ? { error } : {}), ...(response ? { response } : {}), ...(trailers ? { trailers } : {}) })));
      pending.on('status', (status) => { trailers = status.metadata; });
      options.signal?.addEventListener('abort', () => pending.cancel());
    });

  beforeAll(async () => {
    odd = await startOddUpstream();
    e2e = await startGrpcProxyE2E({ upstreamUrl: odd.url });
    client = new grpc.Client(e2e.host, grpc.credentials.createInsecure());
  });
  afterAll(async () => {
    client.close();
    await e2e.stop();
    odd.stop();
  });

  it('forwards a method the proxy has never heard of: body, request metadata and trailing metadata as sent', async () => {
    const answer = await call('Echo', Buffer.from([0, 1, 2, 255]), { metadata: { 'x-custom': 'hello' } });
    expect(answer.response).toEqual(Buffer.from([...Buffer.from('echo:'), 0, 1, 2, 255]));
    expect(answer.trailers?.get('x-upstream-trailer')).toEqual(['got hello']);
    expect(answer.trailers?.get('x-svc-credit-remaining')).toHaveLength(1);
  });

  it('passes an application status with its message and grpc-status-details-bin through unchanged', async () => {
    const { error } = await call('Fail', Buffer.alloc(0));
    expect(error?.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(error?.details).toBe('no: not now');
    expect(error?.metadata.get('grpc-status-details-bin')).toEqual([Buffer.from([8, 9, 18, 4, 110, 111, 112, 101])]);
  });

  it("application statuses (INTERNAL, FAILED_PRECONDITION) never open the breaker", async () => {
    for (let i = 0; i < defaultUpstreamPolicy.breakerFailureThreshold * 2; i += 1) {
      expect((await call('Internal', Buffer.alloc(0))).error?.code).toBe(grpc.status.INTERNAL);
      expect((await call('Fail', Buffer.alloc(0))).error?.code).toBe(grpc.status.FAILED_PRECONDITION);
    }
    expect(e2e.upstream.breakers()['grpc']).toBe('closed');
  });

  it("propagates the client's deadline upstream (grpc-timeout) and ends the call with DEADLINE_EXCEEDED", async () => {
    const before = odd.seen.hangCancelled;
    const { error } = await call('Hang', Buffer.alloc(0), { deadlineMs: 400 });
    expect(error?.code).toBe(grpc.status.DEADLINE_EXCEEDED);
    const given = odd.seen.hangDeadlines.at(-1)!;
    expect(given).toBeGreaterThan(0);
    expect(given).toBeLessThanOrEqual(400);
    await vi.waitFor(() => expect(odd.seen.hangCancelled).toBe(before + 1));
    expect(e2e.upstream.breakers()['grpc']).toBe('closed');
  });

  it('a deadline weeks away (past the 24.8 days a Node timer holds) is a deadline, not an instant DEADLINE_EXCEEDED', async () => {
    const answered = await call('Echo', Buffer.from([7]), { deadlineMs: 30 * 24 * 3_600_000 });
    expect(answered.error).toBeUndefined();
    expect(answered.response).toEqual(Buffer.from([...Buffer.from('echo:'), 7]));
  });

  it('streams reset by the client at any stage (before auth, mid-call, whole connection dropped) leave the proxy serving', async () => {
    for (let i = 0; i < 10; i += 1) {
      const session = http2.connect(`http://${e2e.host}`);
      session.on('error', () => undefined);
      const headers = { ':method': 'POST', ':path': '/sui.rpc.v2.FutureService/Hang', 'content-type': 'application/grpc', te: 'trailers', 'x-api-key': e2e.gateway.adminKey };
      const early = session.request(headers);
      early.on('error', () => undefined);
      early.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
      const later = session.request(headers);
      later.on('error', () => undefined);
      later.end(Buffer.alloc(5));
      if (i % 2 === 0) later.close(http2.constants.NGHTTP2_REFUSED_STREAM);
      session.destroy();
    }
    const answer = await call('Echo', Buffer.from([7]), { metadata: { 'x-custom': 'still here' } });
    expect(answer.response).toEqual(Buffer.from([...Buffer.from('echo:'), 7]));
  });

  it('propagates a client cancellation to the upstream', async () => {
    const before = odd.seen.hangCancelled;
    const arrived = odd.seen.hangDeadlines.length;
    const abort = new AbortController();
    const pending = call('Hang', Buffer.alloc(0), { signal: abort.signal });
    await vi.waitFor(() => expect(odd.seen.hangDeadlines).toHaveLength(arrived + 1));
    abort.abort();
    expect((await pending).error?.code).toBe(grpc.status.CANCELLED);
    await vi.waitFor(() => expect(odd.seen.hangCancelled).toBe(before + 1));
  });
});

describe('gRPC proxy: an unreachable upstream', () => {
  it('is UNAVAILABLE with UPSTREAM_UNAVAILABLE; transport failures open the breaker, then calls fail fast', async () => {
    const e2e = await startGrpcProxyE2E({ upstreamUrl: 'http://127.0.0.1:1' });
    try {
      const client = e2e.native(e2e.gateway.adminKey);
      for (let i = 0; i < defaultUpstreamPolicy.breakerFailureThreshold; i += 1) {
        await expect(client.ledgerService.getServiceInfo({}).response).rejects.toMatchObject({ code: 'UNAVAILABLE', message: expect.stringMatching(/^UPSTREAM_UNAVAILABLE: mainnet\/grpc: /) });
      }
      expect(e2e.upstream.breakers()['grpc']).toBe('open');
      await expect(client.ledgerService.getServiceInfo({}).response).rejects.toMatchObject({ code: 'UNAVAILABLE', message: expect.stringMatching(/circuit open/) });
    } finally {
      await e2e.stop();
    }
  });
});

describe('gRPC proxy: a caller that opens calls and stays silent', () => {
  it("fails its own calls with DEADLINE_EXCEEDED and never opens the network's breaker", async () => {
    const odd = await startOddUpstream();
    // Short attempts, so that each silent call ends soon; the deadline leaves room for one attempt.
    const e2e = await startGrpcProxyE2E({ upstreamUrl: odd.url, policy: { attemptTimeoutMs: 400, deadlineMs: 800 } });
    const session = http2.connect(`http://${e2e.host}`);
    session.on('error', () => undefined);
    try {
      const silent = () => new Promise<string | undefined>((resolve) => {
        const stream = session.request({
          ':method': 'POST', ':path': '/sui.rpc.v2.FutureService/Echo', 'content-type': 'application/grpc', te: 'trailers', 'x-api-key': e2e.gateway.adminKey,
        });
        // The caller never ends its side: the answer is what tells the call is over.
        stream.on('response', (headers) => { if (headers['grpc-status'] !== undefined) resolve(String(headers['grpc-status'])); });
        stream.on('trailers', (trailers) => resolve(trailers['grpc-status'] as string | undefined));
        stream.on('error', () => undefined);
        stream.on('close', () => resolve(undefined));
        stream.resume();
      });
      const statuses = await Promise.all(Array.from({ length: defaultUpstreamPolicy.breakerFailureThreshold * 2 }, silent));
      expect(statuses).toEqual(statuses.map(() => String(grpc.status.DEADLINE_EXCEEDED)));
      expect(e2e.upstream.breakers()['grpc']).toBe('closed');
      const client = new grpc.Client(e2e.host, grpc.credentials.createInsecure());
      const metadata = new grpc.Metadata();
      metadata.set('x-api-key', e2e.gateway.adminKey);
      const echoed = await new Promise<Buffer | undefined>((resolve) => {
        client.makeUnaryRequest('/sui.rpc.v2.FutureService/Echo', bytes, bytes, Buffer.from([1]), metadata, (_error, response) => resolve(response));
      });
      client.close();
      expect(echoed).toEqual(Buffer.from([...Buffer.from('echo:'), 1]));
    } finally {
      session.destroy();
      await e2e.stop();
      odd.stop();
    }
  });
});

describe('gRPC proxy: a caller that has not sent its whole request when the time is up', () => {
  /**
   * The caller's failure, as a REST request whose body stalls: before, it went through the
   * upstream's error mapping as DEADLINE_EXCEEDED `UPSTREAM_TIMEOUT`, settled as a 504 (not
   * charged) and counted as one and as an upstream timeout.
   */
  it("is the caller's REQUEST_TIMEOUT (DEADLINE_EXCEEDED): charged 1 credit, counted as a 408, never as an upstream timeout", async () => {
    const odd = await startOddUpstream();
    const metrics = new Metrics({ defaultMetrics: false });
    const e2e = await startGrpcProxyE2E({ upstreamUrl: odd.url, policy: { attemptTimeoutMs: 400, deadlineMs: 800 }, metrics });
    (e2e.upstream as SuiUpstream).instrument(metrics);
    const session = http2.connect(`http://${e2e.host}`);
    session.on('error', () => undefined);
    try {
      const remaining = async () => (await e2e.metering.ledger.balance(e2e.gateway.organizationId)).remaining;
      const before = await remaining();
      const answer = await new Promise<http2.IncomingHttpHeaders>((resolve) => {
        const stream = session.request({
          ':method': 'POST', ':path': '/sui.rpc.v2.FutureService/Echo', 'content-type': 'application/grpc', te: 'trailers', 'x-api-key': e2e.gateway.adminKey,
        });
        stream.on('response', (headers) => { if (headers['grpc-status'] !== undefined) resolve(headers); });
        stream.on('trailers', resolve);
        stream.on('error', () => undefined);
        // Half a message, and no end.
        stream.write(Buffer.from([0, 0, 0, 0, 8, 1, 2]));
        stream.resume();
      });
      expect(answer['grpc-status']).toBe(String(grpc.status.DEADLINE_EXCEEDED));
      expect(decodeURIComponent(String(answer['grpc-message']))).toBe('REQUEST_TIMEOUT: The request was not received in full within 400 ms.');
      expect(answer['x-svc-credit-remaining']).toBe(String(before - 1));
      expect(await remaining()).toBe(before - 1);
      const exposition = (await metrics.registry.metrics()).split('\n');
      expect(exposition.filter((line) => line.startsWith('suigw_requests_total{'))).toEqual([
        'suigw_requests_total{protocol="grpc",route="other",method="POST",status="408"} 1',
      ]);
      expect(exposition.filter((line) => line.startsWith('suigw_upstream_calls_total{') && line.includes('method="other"'))).toEqual([
        'suigw_upstream_calls_total{network="mainnet",api="grpc",method="other",outcome="cancelled"} 1',
      ]);
      expect(e2e.upstream.breakers()['grpc']).toBe('closed');
    } finally {
      session.destroy();
      await e2e.stop();
      odd.stop();
    }
  });
});

describe('gRPC proxy: gRPC-Web calls with an empty or undecodable body', () => {
  it("are answered by the node at once and never open the network's breaker", async () => {
    const odd = await startOddUpstream();
    const e2e = await startGrpcProxyE2E({ upstreamUrl: odd.url });
    try {
      const post = async (body: string, contentType: string) => {
        const response = await fetch(`http://${e2e.host}/sui.rpc.v2.FutureService/Echo`, {
          method: 'POST', body, headers: { 'content-type': contentType, 'x-grpc-web': '1', 'x-api-key': e2e.gateway.adminKey },
        });
        const text = Buffer.from(await response.arrayBuffer()).toString('latin1');
        return response.headers.get('grpc-status') ?? /grpc-status:\s*(\d+)/.exec(text)?.[1];
      };
      // The empty body reached the node without its end, which then waited: each call timed out
      // as a transport failure, and a few of them opened the breaker for every tenant.
      const statuses = await Promise.all(Array.from({ length: defaultUpstreamPolicy.breakerFailureThreshold * 2 }, (_, i) =>
        post(i % 2 === 0 ? '' : '!!!', i % 2 === 0 ? 'application/grpc-web+proto' : 'application/grpc-web-text')));
      // grpc-js answers a unary call without a request message itself.
      expect(statuses).toEqual(statuses.map(() => String(grpc.status.UNIMPLEMENTED)));
      expect(e2e.upstream.breakers()['grpc']).toBe('closed');
    } finally {
      await e2e.stop();
      odd.stop();
    }
  });
});

describe('gRPC proxy: an upstream that answers without a gRPC status', () => {
  it('is UNAVAILABLE with UPSTREAM_UNAVAILABLE and the upstream\'s HTTP status, and is not charged (a 5xx, spec: Limits)', async () => {
    // A proxy in front of the node answering with an HTTP error and no grpc-status, headers only.
    const statusless = http2.createServer();
    statusless.on('stream', (stream) => {
      stream.on('error', () => undefined);
      stream.respond({ ':status': 502, 'content-type': 'text/plain' }, { endStream: true });
    });
    await new Promise<void>((resolve) => statusless.listen(0, '127.0.0.1', () => resolve()));
    const e2e = await startGrpcProxyE2E({ upstreamUrl: `http://127.0.0.1:${(statusless.address() as { port: number }).port}` });
    try {
      const { ledger } = e2e.metering;
      const before = (await ledger.balance(e2e.gateway.organizationId)).remaining;
      await expect(e2e.native(e2e.gateway.adminKey).ledgerService.getServiceInfo({}).response).rejects.toMatchObject({
        code: 'UNAVAILABLE', message: 'UPSTREAM_UNAVAILABLE: the upstream answered HTTP 502 without a gRPC status',
      });
      expect((await ledger.balance(e2e.gateway.organizationId)).remaining).toBe(before);
    } finally {
      await e2e.stop();
      statusless.close();
    }
  });
});
