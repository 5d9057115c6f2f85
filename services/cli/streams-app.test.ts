import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, loadConfig, ManualClock } from '../core/index.js';
import { registeredRoutes } from '../http/index.js';
import { createKey, createOrganization } from '../identity/index.js';
import type { App } from '../route-contract/index.js';
import { createTestDatabase, type TestDatabase } from '../../test/support/test-database.js';
import { WARP_ENGINES, type WarpEngine } from '../../test/support/warp-engines.js';
import { buildStreamsApp } from './streams-app.js';
import { RedisStreamLease } from '../streams/delivery/stream-lease.js';
import { RedisStreamLog } from '../streams/log/stream-log.redis.js';
import { startRedis } from '../../test/support/processes.js';

/** What `suigw streams` serves: Warp delivery and health, nothing of the gateway's. */
describe('the streams role app (suigw streams)', () => {
  let db: TestDatabase;
  let engine: WarpEngine;
  let app: App;
  let streamsKey: string;
  let dataKey: string;
  beforeAll(async () => {
    const clock = new ManualClock();
    db = await createTestDatabase();
    engine = await WARP_ENGINES.find(([name]) => name === 'memory')![1](clock);
    const { organization, projects } = await createOrganization(db.database.db, clock, { name: 'o', tier: 'team', projects: [{ name: 'p', network: 'mainnet' }] });
    const key = (scopes: ('streams' | 'data' | 'manage')[]) => createKey(db.database, clock, { kind: 'operator' }, {
      organizationId: organization.id, projectId: projects[0]!.id, name: 'k', scopes, expiresInDays: 30,
    });
    streamsKey = (await key(['streams', 'manage'])).apiKey;
    dataKey = (await key(['data'])).apiKey;
    app = await buildStreamsApp({ config: loadConfig({ LOG_LEVEL: 'silent' }), database: db.database, clock, logger: createLogger('silent'), warp: engine });
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    await engine.close();
    await db.drop();
  });

  it('registers exactly the Warp routes and /health per network, the root /health and /health/live (besides the legacy redirect)', () => {
    const routes = registeredRoutes(app)
      .filter((route) => route.url !== '/v1/*')
      .flatMap((route) => [route.method].flat().map((method) => `${method} ${route.url}`))
      .filter((route) => !route.startsWith('HEAD '))
      .sort();
    expect(routes).toEqual([
      'GET /health', 'GET /health/live', 'GET /mainnet/v1/health', 'GET /mainnet/v1/warp/:id/stream', 'GET /mainnet/v1/warp/:id/ws',
      'GET /testnet/v1/health', 'GET /testnet/v1/warp/:id/stream', 'GET /testnet/v1/warp/:id/ws',
    ]);
  });

  it('gateway routes, the stream definitions and the API documentation are not served', async () => {
    for (const url of ['/mainnet/v1/streams', '/mainnet/v1/keys', '/mainnet/v1/chain', '/mainnet/v1/openapi.json', '/docs']) {
      const response = await app.inject({ url, headers: { 'x-api-key': streamsKey } });
      expect({ url, status: response.statusCode }).toEqual({ url, status: 404 });
    }
  });

  it('health answers; Warp goes through authentication and scope like the gateway', async () => {
    expect((await app.inject({ url: '/health' })).statusCode).toBe(200);
    expect((await app.inject({ url: '/health/live' })).json()).toEqual({ status: 'ok' });
    expect((await app.inject({ url: '/mainnet/v1/warp/str_x/stream' })).statusCode).toBe(401);
    const refused = await app.inject({ url: '/mainnet/v1/warp/str_x/stream', headers: { 'x-api-key': dataKey } });
    expect({ status: refused.statusCode, code: refused.json<{ code: string }>().code }).toEqual({ status: 403, code: 'INSUFFICIENT_SCOPE' });
    const wrongNetwork = await app.inject({ url: '/testnet/v1/warp/str_x/stream', headers: { 'x-api-key': streamsKey } });
    expect({ status: wrongNetwork.statusCode, code: wrongNetwork.json<{ code: string }>().code }).toEqual({ status: 403, code: 'NETWORK_MISMATCH' });
  });
});

/** `/health` of `suigw streams` while its Redis (stream log and lease) is gone. */
describe('the streams role app: /health while the Warp store is unreachable', () => {
  it('is degraded (200) without its Redis, ok with it', async () => {
    const redis = await startRedis();
    const clock = new ManualClock();
    const db = await createTestDatabase();
    const log = await RedisStreamLog.connect({ url: redis.url, clock });
    const lease = await RedisStreamLease.connect(redis.url);
    const app = await buildStreamsApp({ config: loadConfig({ LOG_LEVEL: 'silent' }), database: db.database, clock, logger: createLogger('silent'), warp: { log, lease } });
    try {
      await app.ready();
      const status = async () => (await app.inject({ url: '/health' })).json<{ status: string }>().status;
      expect(await status()).toBe('ok');
      await redis.stop();
      await expect.poll(status, { timeout: 20_000 }).toBe('degraded');
      expect((await app.inject({ url: '/health' })).statusCode).toBe(200);
    } finally {
      await app.close();
      await log.close();
      await lease.close();
      await redis.stop().catch(() => undefined);
      await db.drop();
    }
  });
});
