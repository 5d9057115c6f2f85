import http2 from 'node:http2';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Metrics } from '../../core/index.js';
import { call } from '../../../test/support/management-calls.js';
import { startGrpcProxyE2E, type GrpcProxyE2E } from '../../../test/support/grpc-proxy-e2e.js';

const GET_SERVICE_INFO = '/sui.rpc.v2.LedgerService/GetServiceInfo';

interface UsageRoute { network: string; route: string; requests: number; credits: number }

/** `suigw_requests_total` samples of the proxy's calls, sorted. */
async function requestSamples(metrics: Metrics): Promise<string[]> {
  return (await metrics.registry.metrics()).split('\n').filter((line) => line.startsWith('suigw_requests_total{')).sort();
}

/** An HTTP/2 PING answered: the server has read every frame sent before it (frames are read in order). */
const pinged = (session: http2.ClientHttp2Session) => new Promise<void>((resolve, reject) => {
  session.ping((error) => (error ? reject(error) : resolve()));
});

/**
 * A proxy and gateway for one describe block, sharing one pipeline as in `suigw dev`, with a
 * registry of their own (its request samples are the block's calls only).
 */
function proxyForBlock(options: { upstreamUrl?: string } = {}): { metrics: Metrics; readonly e2e: GrpcProxyE2E } {
  const metrics = new Metrics({ defaultMetrics: false });
  let started: GrpcProxyE2E | undefined;
  beforeAll(async () => {
    started = await startGrpcProxyE2E({ metrics, sharedPipeline: true, ...options });
  });
  afterAll(async () => started?.stop());
  return { metrics, get e2e() { return started!; } };
}

/**
 * Every call the proxy admits ends once: settled by the spec's charge rules (its usage row) and
 * counted once in the request metrics, however it ends.
 */
describe('gRPC proxy: a call cancelled while it is authenticated', () => {
  const proxy = proxyForBlock();

  /**
   * The client resets the call while its key is looked up (the lookup waits on a lock of the keys
   * table). Before, the call was admitted after the reset and then dropped: its credit stayed
   * reserved with no usage row (credits and GET /v1/usage disagreed) and it was never counted.
   * Now it ends as a call the client cancelled later: CANCELLED, counted as a 499, and not
   * charged: no answer reached the caller, as a REST request whose client leaves (one rule,
   * docs/metering.md "Costs"; before, this call cost 1 credit where the REST request cost none).
   */
  it('is settled as CANCELLED (in GET /v1/usage, 0 credits) and counted as a 499', async () => {
    const { e2e, metrics } = proxy;
    const key = await e2e.key();
    const locker = new pg.Client({ connectionString: e2e.gateway.db.url });
    await locker.connect();
    const session = http2.connect(`http://${e2e.host}`);
    session.on('error', () => undefined);
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE api_keys IN ACCESS EXCLUSIVE MODE');
      const stream = session.request({ ':method': 'POST', ':path': GET_SERVICE_INFO, 'content-type': 'application/grpc', te: 'trailers', 'x-api-key': key });
      stream.on('error', () => undefined);
      stream.end(Buffer.alloc(5));
      // The proxy has the call (its key lookup is waiting on the lock) before the reset reaches it.
      await pinged(session);
      stream.close(http2.constants.NGHTTP2_CANCEL);
      await pinged(session);
      await locker.query('COMMIT');
      await expect.poll(() => requestSamples(metrics), { timeout: 10_000 }).toEqual([
        `suigw_requests_total{protocol="grpc",route="${GET_SERVICE_INFO}",method="POST",status="499"} 1`,
      ]);
      const usage = await call(e2e.gateway, 'GET', '/v1/usage', { key: e2e.gateway.adminKey });
      expect(usage.status).toBe(200);
      expect((usage.body.data as { routes: UsageRoute[] }).routes).toEqual([
        { network: 'mainnet', route: `gRPC ${GET_SERVICE_INFO}`, requests: 1, credits: 0 },
      ]);
    } finally {
      session.destroy();
      await locker.end();
    }
  });
});

describe('gRPC proxy: a call the upstream fails before answering', () => {
  // Nothing listens on port 1: every attempt is refused before the node could answer.
  const proxy = proxyForBlock({ upstreamUrl: 'http://127.0.0.1:1' });

  /**
   * Before, the failure was answered by the call's outer handler while the call itself stayed
   * open, so the client's stream closing then ended it again: counted twice, as 503 and 499.
   */
  it('is answered UNAVAILABLE, not charged, and counted once as a 503', async () => {
    const { e2e, metrics } = proxy;
    const session = http2.connect(`http://${e2e.host}`);
    session.on('error', () => undefined);
    try {
      const answer = await new Promise<http2.IncomingHttpHeaders>((resolve, reject) => {
        const stream = session.request({ ':method': 'POST', ':path': GET_SERVICE_INFO, 'content-type': 'application/grpc', te: 'trailers', 'x-api-key': e2e.gateway.adminKey });
        stream.on('response', resolve);
        stream.on('error', reject);
        stream.resume();
        stream.end(Buffer.alloc(5));
      });
      // The server has read everything up to this PING: the call's stream has closed there.
      await pinged(session);
      expect(answer['grpc-status']).toBe('14');
      expect(answer['grpc-message']).toBe(
        'UPSTREAM_UNAVAILABLE: mainnet/grpc: /sui.rpc.v2.LedgerService/GetServiceInfo: The pending stream has been canceled (caused by: connect ECONNREFUSED 127.0.0.1:1)',
      );
      expect(answer['x-svc-credit-remaining']).toBe('25000000');
      expect(await requestSamples(metrics)).toEqual([
        `suigw_requests_total{protocol="grpc",route="${GET_SERVICE_INFO}",method="POST",status="503"} 1`,
      ]);
      const usage = await call(e2e.gateway, 'GET', '/v1/usage', { key: e2e.gateway.adminKey });
      expect((usage.body.data as { routes: UsageRoute[] }).routes).toEqual([
        { network: 'mainnet', route: `gRPC ${GET_SERVICE_INFO}`, requests: 1, credits: 0 },
      ]);
    } finally {
      session.destroy();
    }
  });
});

describe('gRPC proxy: a stream whose next message cannot be charged', () => {
  const proxy = proxyForBlock();

  /**
   * A streamed message past the first is paid before it is sent; the first charge of a new credit
   * period reads the organization's totals from PostgreSQL, which may fail. Before, that failure
   * was an unhandled rejection (in production, the process's end) and the stream stayed paused and
   * unsettled until the client left. Now it ends the call with the failure's status, its delivered
   * messages charged, counted once.
   */
  it('ends with the failure (INTERNAL), its delivered messages charged, counted once', async () => {
    const { e2e, metrics } = proxy;
    const sql = new pg.Client({ connectionString: e2e.gateway.db.url });
    await sql.connect();
    try {
      const subscription = e2e.native(e2e.gateway.adminKey).subscriptionService.subscribeCheckpoints({ readMask: { paths: ['sequence_number'] } });
      let received = 0;
      await expect((async () => {
        for await (const _ of subscription.responses) {
          received += 1;
          if (received > 1) continue;
          // The credit period's totals cannot be read any more; the next charge is the new period's first.
          await sql.query('ALTER TABLE usage_minutes RENAME TO usage_minutes_away');
          e2e.gateway.clock.set(Date.UTC(2026, 11, 1));
        }
      })()).rejects.toMatchObject({ code: 'INTERNAL', message: 'INTERNAL_ERROR: Internal error' });
      await sql.query('ALTER TABLE usage_minutes_away RENAME TO usage_minutes');
      expect(received).toBeGreaterThanOrEqual(1);
      expect(await requestSamples(metrics)).toEqual([
        'suigw_requests_total{protocol="grpc",route="/sui.rpc.v2.SubscriptionService/SubscribeCheckpoints",method="POST",status="500"} 1',
      ]);
      const usage = await call(e2e.gateway, 'GET', '/v1/usage', { key: e2e.gateway.adminKey });
      expect((usage.body.data as { routes: UsageRoute[] }).routes).toEqual([
        { network: 'mainnet', route: 'gRPC /sui.rpc.v2.SubscriptionService/SubscribeCheckpoints', requests: 1, credits: received },
      ]);
    } finally {
      await sql.end();
    }
  });
});
