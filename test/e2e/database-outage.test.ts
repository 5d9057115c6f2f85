import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, networkRewriter } from '../../services/core/index.js';
import { openDatabase, type Database } from '../../services/db/index.js';
import { buildGatewayApp } from '../../services/cli/gateway-app.js';
import { AuthzCheck, GatewayRoutes } from '../../services/envoy/index.js';
import { openPipeline, type OpenedPipeline } from '../../services/pipeline/index.js';
import { SignedIdentity } from '../../services/identity/index.js';
import { statusOf } from '../../services/grpc/proxy/grpc-status.js';
import { GrpcStatus } from '../../services/core/index.js';
import type { App } from '../../services/route-contract/index.js';
import { authorizationService } from '../support/envoy-protos.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

/**
 * A TCP relay in front of the machine's PostgreSQL: the roles reach the database through it, and
 * `cut()` makes the database unreachable (listener closed, every relayed connection reset), as a
 * failover or a network partition does.
 */
async function startRelay(target: { host: string; port: number }) {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    cut: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

const Check = authorizationService().service['Check']!;

/**
 * The database unreachable in the middle of serving: a request that needs it is 503
 * DATABASE_UNAVAILABLE with Retry-After, over HTTP, gRPC and Envoy's ext_authz alike. It was a 500
 * INTERNAL_ERROR (found by terminating PostgreSQL's backends under traffic).
 */
describe('the database unreachable while serving: 503 DATABASE_UNAVAILABLE, not 500', () => {
  let t: TestApp;
  let relay: Awaited<ReturnType<typeof startRelay>>;
  let database: Database;
  let app: App;
  let pipeline: OpenedPipeline;
  let authz: AuthzCheck;
  beforeAll(async () => {
    t = await createTestApp();
    const url = new URL(t.db.url);
    relay = await startRelay({ host: url.hostname, port: Number(url.port || 5432) });
    url.port = String(relay.port);
    database = await openDatabase({ url: url.toString(), poolSize: 2 });
    const logger = createLogger('silent');
    app = await buildGatewayApp({ config: t.config, database, clock: t.clock, logger });
    await app.ready();
    pipeline = await openPipeline({ config: t.config, database, clock: t.clock, logger }, { stages: 'access' });
    authz = new AuthzCheck({
      pipeline: pipeline.pipeline,
      routes: new GatewayRoutes([{ method: 'GET', url: '/mainnet/v1/keys', auth: { scope: 'manage' }, queryKey: false, cost: 'free' }], t.config.networks),
      networkPath: networkRewriter(t.config),
      identity: new SignedIdentity({ key: Buffer.alloc(32, 7), clock: t.clock, maxAgeMs: 60_000 }),
      logger,
    });
    await relay.cut();
  });
  afterAll(async () => {
    await app?.close().catch(() => undefined);
    await pipeline?.close().catch(() => undefined);
    await database?.close().catch(() => undefined);
    await t?.close();
  });

  it('HTTP: a key that must be looked up gets 503 DATABASE_UNAVAILABLE, Retry-After 2', async () => {
    const response = await app.inject({ method: 'GET', url: '/mainnet/v1/keys', headers: { 'x-api-key': t.adminKey } });
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('2');
    expect(response.json()).toEqual({
      error: 'Database unavailable',
      code: 'DATABASE_UNAVAILABLE',
      message: 'The database cannot be reached right now; nothing was changed by this request. Try again.',
      retryAfter: 2,
      requestId: response.headers['x-request-id'],
    });
  });

  it('ext_authz: the same answer, denied with 503 and its Retry-After', async () => {
    const frame = await authz.check({ method: 'GET', path: '/mainnet/v1/keys', headers: { 'x-api-key': t.adminKey, 'x-request-id': 'outage-1' } } as never);
    const answer = Check.responseDeserialize(frame.subarray(5)) as { denied_response: { status: { code: number }; headers: { header: { key: string; value: string } }[]; body: string } };
    expect(answer.denied_response.status.code).toBe(503);
    expect(answer.denied_response.headers.map((option) => [option.header.key, option.header.value])).toContainEqual(['retry-after', '2']);
    expect(JSON.parse(answer.denied_response.body)).toMatchObject({ code: 'DATABASE_UNAVAILABLE', retryAfter: 2, requestId: 'outage-1' });
  });

  it('gRPC: the call ends UNAVAILABLE naming DATABASE_UNAVAILABLE; a query error stays INTERNAL', () => {
    expect(statusOf(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }))).toEqual({
      code: GrpcStatus.UNAVAILABLE,
      message: 'DATABASE_UNAVAILABLE: The database cannot be reached right now; nothing was changed by this request. Try again.',
    });
    expect(statusOf(Object.assign(new Error('syntax error'), { code: '42601' })).code).toBe(GrpcStatus.INTERNAL);
  });
});
