import { randomBytes } from 'node:crypto';
import http2 from 'node:http2';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PLANS } from '../../plans/index.js';
import { startGrpcProxyE2E, type GrpcProxyE2E } from '../../../test/support/grpc-proxy-e2e.js';
import { reflectionTypes } from '../reflection/index.js';

/** One `list_services` on the reflection stream, as grpcurl starts: the gRPC status code (0 = OK) and how many answers came. */
function listServices(host: string, key: string): Promise<{ code: number; details: string; answers: number }> {
  const types = reflectionTypes('grpc.reflection.v1');
  const client = new grpc.Client(host, grpc.credentials.createInsecure());
  const metadata = new grpc.Metadata();
  metadata.set('x-api-key', key);
  const call = client.makeBidiStreamRequest(
    '/grpc.reflection.v1.ServerReflection/ServerReflectionInfo',
    (request: Parameters<typeof types.Request.toBinary>[0]) => Buffer.from(types.Request.toBinary(request)),
    (bytes: Buffer) => types.Response.fromBinary(bytes),
    metadata,
  );
  let answers = 0;
  return new Promise((resolve) => {
    call.on('data', () => { answers += 1; });
    call.on('error', () => undefined);
    call.on('status', (status: grpc.StatusObject) => {
      client.close();
      resolve({ code: status.code, details: status.details, answers });
    });
    call.write(types.Request.create({ host: '', messageRequest: { oneofKind: 'listServices', listServices: '' } }));
    call.end();
  });
}

describe('gRPC proxy: metering per call and per streamed message', () => {
  let e2e: GrpcProxyE2E;
  const remaining = async () => (await e2e.metering.ledger.balance(e2e.gateway.organizationId)).remaining;
  /** Leaves the organization exactly `credits` credits this period. */
  const leave = async (credits: number) => { e2e.metering.ledger.adjust(e2e.gateway.organizationId, (await remaining()) - credits); };

  beforeAll(async () => {
    e2e = await startGrpcProxyE2E();
    await e2e.native(e2e.gateway.adminKey).ledgerService.getServiceInfo({});
  });
  afterAll(async () => { await e2e.stop(); });

  it('a unary call costs 1 credit and returns the rate-limit and credit headers as trailing metadata', async () => {
    const before = await remaining();
    const call = e2e.native(e2e.gateway.adminKey).ledgerService.getServiceInfo({});
    expect((await call.response).chainId).toBe(e2e.simnet!.chainId);
    const trailers = await call.trailers;
    expect(await remaining()).toBe(before - 1);
    expect(trailers['x-svc-credit-remaining']).toBe(String(before - 1));
    expect(Number(trailers['x-ratelimit-limit'])).toBe(PLANS.team.orgRps);
    expect(trailers['x-svc-credit-replenish-date']).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('a call the upstream answers with a caller error (NOT_FOUND) costs 1 credit; its status passes through', async () => {
    const before = await remaining();
    await expect(e2e.native(e2e.gateway.adminKey).ledgerService.getObject({ objectId: `0x${'ab'.repeat(32)}` }).response).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await remaining()).toBe(before - 1);
  });

  it('a stream costs 1 credit per message received', async () => {
    const before = await remaining();
    const abort = new AbortController();
    const call = e2e.native(e2e.gateway.adminKey).subscriptionService.subscribeCheckpoints({ readMask: { paths: ['sequence_number'] } }, { abort: abort.signal });
    const received: bigint[] = [];
    await expect((async () => {
      for await (const message of call.responses) {
        received.push(message.cursor!);
        if (received.length === 4) abort.abort();
      }
    })()).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(received).toHaveLength(4);
    expect(received[3]! - received[0]!).toBe(3n);
    // The proxy settles when the cancellation reaches it.
    await vi.waitFor(async () => expect(await remaining()).toBe(before - 4));
  });

  it('quota exhaustion mid-stream ends it with RESOURCE_EXHAUSTED and CU_QUOTA_EXCEEDED after the paid messages', async () => {
    await leave(3);
    const call = e2e.native(e2e.gateway.adminKey).subscriptionService.subscribeCheckpoints({ readMask: { paths: ['sequence_number'] } });
    let received = 0;
    await expect((async () => {
      for await (const _ of call.responses) received += 1;
    })()).rejects.toMatchObject({ code: 'RESOURCE_EXHAUSTED', message: 'CU_QUOTA_EXCEEDED: Monthly credits spent' });
    expect(received).toBe(3);
    expect(await remaining()).toBe(0);
    // With nothing left, the next call is refused at admission, not charged.
    await expect(e2e.native(e2e.gateway.adminKey).ledgerService.getServiceInfo({}).response).rejects.toMatchObject({ code: 'RESOURCE_EXHAUSTED', message: 'CU_QUOTA_EXCEEDED: Monthly credits spent' });
    await leave(100);
  });

  it('reflection is a call like any other: 1 credit, and the per-key cap refuses it uncharged', async () => {
    const before = await remaining();
    expect(await listServices(e2e.host, e2e.gateway.adminKey)).toEqual({ code: grpc.status.OK, details: 'OK', answers: 1 });
    await vi.waitFor(async () => expect(await remaining()).toBe(before - 1));
    const key = await e2e.key({ perKeyRps: 1 });
    expect((await listServices(e2e.host, key)).code).toBe(grpc.status.OK);
    const capped = await remaining();
    expect(await listServices(e2e.host, key)).toEqual({ code: grpc.status.RESOURCE_EXHAUSTED, details: 'RATE_LIMIT_EXCEEDED: Rate limit exceeded', answers: 0 });
    expect(await remaining()).toBe(capped);
  });

  it('a made-up method path, however long, is recorded under a bounded route: it cannot make the usage flush fail for everyone', async () => {
    // A path is the caller's: 6,000 random characters as a usage row's route were over PostgreSQL's
    // index row limit, so every flush of the process failed from then on (every organization's usage held back).
    const path = `/made.Up/${randomBytes(3000).toString('hex')}`;
    const session = http2.connect(`http://${e2e.host}`);
    const status = await new Promise<string | undefined>((resolve) => {
      let code: string | undefined;
      const call = session.request({ ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers', 'x-api-key': e2e.gateway.adminKey });
      const read = (headers: http2.IncomingHttpHeaders) => { code ??= headers['grpc-status'] as string | undefined; };
      call.on('response', read);
      call.on('trailers', read);
      call.on('close', () => resolve(code));
      call.resume();
      call.end(Buffer.alloc(5));
    });
    session.close();
    expect(status).toBe(String(grpc.status.UNIMPLEMENTED));
    await e2e.native(e2e.gateway.adminKey).ledgerService.getServiceInfo({}).response;
    await e2e.metering.usage.flush();
    expect(e2e.metering.usage.pending().requests).toBe(0);
    const routes = await e2e.gateway.db.database.db.selectFrom('usage_minutes').select('route').distinct()
      .where('organization_id', '=', e2e.gateway.organizationId).execute();
    expect(routes.map((row) => row.route)).toEqual(expect.arrayContaining(['gRPC other', 'gRPC /sui.rpc.v2.LedgerService/GetServiceInfo']));
    expect(routes.every((row) => row.route.length < 200)).toBe(true);
  });

  it('the per-key cap refuses a call with RESOURCE_EXHAUSTED and RATE_LIMIT_EXCEEDED, uncharged', async () => {
    const key = await e2e.key({ perKeyRps: 1 });
    await e2e.native(key).ledgerService.getServiceInfo({}).response;
    const before = await remaining();
    await expect(e2e.native(key).ledgerService.getServiceInfo({}).response).rejects.toMatchObject({ code: 'RESOURCE_EXHAUSTED', message: 'RATE_LIMIT_EXCEEDED: Rate limit exceeded' });
    expect(await remaining()).toBe(before);
  });
});

describe('gRPC proxy with SUIGW_METERING=off', () => {
  let e2e: GrpcProxyE2E;
  beforeAll(async () => {
    e2e = await startGrpcProxyE2E({ env: { SUIGW_METERING: 'off' } });
  });
  afterAll(async () => { await e2e.stop(); });

  it('limits and charges nothing, as every other transport: no cap, no credits, no headers', async () => {
    const before = (await e2e.metering.ledger.balance(e2e.gateway.organizationId)).remaining;
    const key = await e2e.key({ perKeyRps: 1 });
    for (let i = 0; i < 3; i += 1) {
      const call = e2e.native(key).ledgerService.getServiceInfo({});
      expect((await call.response).chainId).toBe(e2e.simnet!.chainId);
      expect(await call.trailers).not.toHaveProperty('x-svc-credit-remaining');
    }
    expect((await e2e.metering.ledger.balance(e2e.gateway.organizationId)).remaining).toBe(before);
  });

  it('still authenticates', async () => {
    await expect(e2e.native('svc_pat_not_a_key').ledgerService.getServiceInfo({}).response).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  });
});
