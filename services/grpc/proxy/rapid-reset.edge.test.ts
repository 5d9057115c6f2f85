import http from 'node:http';
import http2 from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, ManualClock, Metrics } from '../../core/index.js';
import type { RequestPipeline } from '../../pipeline/index.js';
import type { Upstream } from '../../upstream/index.js';
import { createGrpcProxy, type GrpcProxy } from './index.js';
import { PREMATURE_RESETS_TOLERATED } from './premature-resets.js';

const { NGHTTP2_CANCEL, NGHTTP2_ENHANCE_YOUR_CALM } = http2.constants;
const CALL = { ':method': 'POST', ':path': '/sui.rpc.v2.LedgerService/GetServiceInfo', 'content-type': 'application/grpc' };

/**
 * HTTP/2 rapid reset (CVE-2023-44487) on the gRPC port: a client that opens calls and resets each
 * at once is sent GOAWAY ENHANCE_YOUR_CALM at its 100th premature reset. Before, only nghttp2's
 * own limit closed such a session, after about 1,000 resets, each of which had started an
 * upstream call (1,113 of 1,300 in one run).
 */
describe('gRPC proxy: rapid reset', () => {
  const clock = new ManualClock();
  let proxy: GrpcProxy;
  let port: number;
  let upstreamCalls = 0;
  beforeAll(async () => {
    const principal = { organization: { id: 'org_rapid' } };
    // A call with a key is admitted and forwarded; one without is refused at once (an answered call).
    const pipeline = {
      authenticateKey: (key: string | undefined) => {
        if (key === undefined) throw new ApiError('API_KEY_MISSING');
        return principal;
      },
      admit: () => Promise.resolve({ ticket: undefined, error: undefined }),
      settle: () => ({}),
    } as unknown as RequestPipeline;
    // Counts the upstream calls started; each hangs until cancelled.
    const upstream = { network: 'mainnet', rawGrpc: () => { upstreamCalls += 1; return new Promise(() => undefined); } } as unknown as Upstream;
    proxy = createGrpcProxy({ pipeline, upstreams: new Map([['mainnet', upstream]]), networkOf: () => 'mainnet', clock });
    ({ port } = await proxy.listen(0, '127.0.0.1'));
  });
  afterAll(async () => { await proxy.close(); });

  /** A client session, ready, recording the GOAWAY code it is sent. */
  async function connect() {
    const session = http2.connect(`http://127.0.0.1:${port}`);
    const seen: { goaway: number | undefined } = { goaway: undefined };
    session.on('goaway', (code) => { seen.goaway = code; });
    session.on('error', () => undefined);
    await new Promise<void>((resolve) => session.once('remoteSettings', () => resolve()));
    return { session, seen };
  }

  const closed = (emitter: { once(event: 'close', listener: () => void): unknown }) => new Promise<void>((resolve) => { emitter.once('close', () => resolve()); });

  /** Opens `count` calls with a key and resets each right away; resolves once every reset was sent. */
  async function rapidResets(session: http2.ClientHttp2Session, count: number): Promise<void> {
    const calls = Array.from({ length: count }, () => {
      const call = session.request({ ...CALL, 'x-api-key': 'svc_pat_rapid' }, { endStream: false });
      call.on('error', () => undefined);
      call.close(NGHTTP2_CANCEL);
      return closed(call);
    });
    await Promise.all(calls);
  }

  /**
   * One call refused at once (no key): resolves when its answer came back, sent after everything
   * before it was read, or when the session went away.
   */
  const answered = (session: http2.ClientHttp2Session) => new Promise<void>((resolve) => {
    if (session.closed || session.destroyed) return resolve();
    session.once('close', () => resolve());
    const call = session.request(CALL, { endStream: true });
    call.on('error', () => resolve());
    call.resume();
    call.once('close', () => resolve());
  });

  it(`goes away at the ${PREMATURE_RESETS_TOLERATED}th premature reset, not before`, async () => {
    expect(PREMATURE_RESETS_TOLERATED).toBe(100);
    upstreamCalls = 0;
    const { session, seen } = await connect();
    await rapidResets(session, 99);
    await answered(session);
    expect(seen.goaway).toBeUndefined();
    await rapidResets(session, 1);
    await answered(session);
    if (!session.closed) await closed(session);
    expect(seen.goaway).toBe(NGHTTP2_ENHANCE_YOUR_CALM);
    expect(upstreamCalls).toBeLessThanOrEqual(100);
  });

  it('is kept while premature resets are at most half of its calls', async () => {
    const { session, seen } = await connect();
    for (let i = 0; i < 100; i++) await answered(session);
    // 100 answered calls and 100 premature resets: not more than half.
    await rapidResets(session, 100);
    await answered(session);
    expect(seen.goaway).toBeUndefined();
    // 101 answered, 102 premature: more than half.
    await rapidResets(session, 2);
    await answered(session);
    if (!session.closed) await closed(session);
    expect(seen.goaway).toBe(NGHTTP2_ENHANCE_YOUR_CALM);
  });

  it('a call reset a second or more after it opened is not premature', async () => {
    const { session, seen } = await connect();
    const calls = Array.from({ length: 150 }, () => {
      const call = session.request({ ...CALL, 'x-api-key': 'svc_pat_patient' }, { endStream: false });
      call.on('error', () => undefined);
      return call;
    });
    await answered(session);
    clock.advance(1_000);
    await Promise.all(calls.map((call) => {
      call.close(NGHTTP2_CANCEL);
      return closed(call);
    }));
    await answered(session);
    expect(seen.goaway).toBeUndefined();
    expect(session.closed).toBe(false);
    session.destroy();
  });
});

/**
 * gRPC-Web over HTTP/1.1 reaches the proxy through one internal HTTP/2 session shared by every
 * browser, and a browser cancels a call by closing its connection, which resets the call on that
 * session. Those resets are the browsers', not one client's: the premature-reset rule does not
 * count them, or a hundred closed pages would send away the session and every browser's calls
 * in flight with it (each would end UNAVAILABLE "upstream closed the stream").
 */
describe('gRPC proxy: rapid reset, gRPC-Web over HTTP/1.1', () => {
  const metrics = new Metrics({ defaultMetrics: false });
  let proxy: GrpcProxy;
  let port: number;
  let upstreamCalls = 0;
  let refuseHeld: () => void = () => undefined;
  let heldAsked: () => void = () => undefined;
  const asked = new Promise<void>((resolve) => { heldAsked = resolve; });
  beforeAll(async () => {
    const principal = { organization: { id: 'org_web' } };
    // The held key's authentication waits until the test refuses it; any other key is admitted.
    const pipeline = {
      authenticateKey: (key: string | undefined) => {
        if (key !== 'svc_pat_held') return principal;
        heldAsked();
        return new Promise((_resolve, reject) => { refuseHeld = () => reject(new ApiError('API_KEY_INVALID')); });
      },
      admit: () => Promise.resolve({ ticket: undefined, error: undefined }),
      settle: () => ({}),
    } as unknown as RequestPipeline;
    // Each upstream call hangs until cancelled.
    const upstream = { network: 'mainnet', rawGrpc: () => { upstreamCalls += 1; return new Promise(() => undefined); } } as unknown as Upstream;
    proxy = createGrpcProxy({
      pipeline, upstreams: new Map([['mainnet', upstream]]), networkOf: () => 'mainnet', clock: new ManualClock(), metrics,
      // One connection per browser call, and one more for the browser whose call stays open.
      maxConnectionsPerClient: PREMATURE_RESETS_TOLERATED + 1,
    });
    ({ port } = await proxy.listen(0, '127.0.0.1'));
  });
  afterAll(async () => { await proxy.close(); });

  /** A gRPC-Web call over its own HTTP/1.1 connection, as a browser page sends it. */
  function webCall(key: string) {
    const request = http.request({
      host: '127.0.0.1', port, method: 'POST', path: CALL[':path'], agent: false,
      headers: { 'content-type': 'application/grpc-web+proto', 'x-grpc-web': '1', 'x-api-key': key },
    });
    request.on('error', () => undefined);
    const answer = new Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }>((resolve) => {
      request.on('response', (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ headers: response.headers, body: Buffer.concat(chunks) }));
      });
    });
    request.end(Buffer.alloc(5));
    return { request, answer };
  }

  const requestSamples = async () => (await metrics.registry.metrics()).split('\n').filter((line) => line.startsWith('suigw_requests_total{'));

  it(`${PREMATURE_RESETS_TOLERATED} calls cancelled at once do not end another browser's call`, async () => {
    const open = webCall('svc_pat_held');
    await asked;
    const pages = Array.from({ length: PREMATURE_RESETS_TOLERATED }, () => webCall('svc_pat_page'));
    await expect.poll(() => upstreamCalls, { timeout: 10_000 }).toBe(PREMATURE_RESETS_TOLERATED);
    for (const page of pages) page.request.destroy();
    // Every reset reached the proxy (each ended its call as CANCELLED) before the held call ends.
    await expect.poll(requestSamples, { timeout: 10_000 }).toEqual([
      `suigw_requests_total{protocol="grpc",route="${CALL[':path']}",method="POST",status="499"} ${PREMATURE_RESETS_TOLERATED}`,
    ]);
    refuseHeld();
    const { headers, body } = await open.answer;
    expect([headers['grpc-status'], headers['grpc-message']]).toEqual(['16', 'Invalid API key']);
    expect(body[0]).toBe(0x80);
    expect(body.subarray(5).toString()).toBe('grpc-status: 16\r\ngrpc-message: Invalid API key\r\n');
  });
});
