import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGatewayApp } from '../../services/cli/gateway-app.js';
import { loadConfig, Metrics, systemClock } from '../../services/core/index.js';
import { createKey, createOrganization } from '../../services/identity/index.js';
import type { Metering } from '../../services/metering/index.js';
import type { App } from '../../services/route-contract/index.js';
import { startRedis } from '../support/processes.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { openPipeline } from '../../services/pipeline/index.js';

const DATA_PATH = `/mainnet/v1/objects/0x${'5'.repeat(64)}`;

describe('Redis stops under load: the limiter fails open, logs it and counts it', () => {
  let db: TestDatabase;
  let redis: Awaited<ReturnType<typeof startRedis>>;
  let metering: Metering;
  let app: App;
  let key: string;
  const lines: string[] = [];
  const metrics = new Metrics({ defaultMetrics: false });
  const failOpenSample = async () =>
    (await metrics.registry.metrics()).split('\n').filter((line) => line.startsWith('suigw_limiter_store_failures_total{'));

  beforeAll(async () => {
    db = await createTestDatabase();
    redis = await startRedis();
    const config = loadConfig({ LOG_LEVEL: 'warn', SUIGW_NETWORKS: 'mainnet', REDIS_URL: redis.url });
    const logger = pino({ level: 'warn' }, new Writable({ write: (chunk, _encoding, done) => { lines.push(String(chunk)); done(); } }));
    const pipeline = await openPipeline({ config, database: db.database, clock: systemClock, logger, metrics });
    metering = pipeline.metering!;
    app = await buildGatewayApp({ config, database: db.database, clock: systemClock, logger, pipeline });
    await app.ready();
    const { organization, projects } = await createOrganization(db.database.db, systemClock, {
      name: 'Acme', tier: 'enterprise', projects: [{ name: 'Default', network: 'mainnet' }],
    });
    key = (await createKey(db.database, systemClock, { kind: 'operator' }, {
      organizationId: organization.id, projectId: projects[0]!.id, name: 'capped', scopes: ['data'], rateLimit: { perKeyRps: 5 },
    })).apiKey;
  });
  afterAll(async () => {
    await app.close();
    await metering.close();
    await redis.stop('SIGKILL');
    await db.drop();
  });

  const burst = async (n: number) => {
    const statuses: number[] = [];
    for (let i = 0; i < n; i += 1) {
      statuses.push((await app.inject({ url: DATA_PATH, headers: { 'x-api-key': key } })).statusCode);
    }
    return statuses;
  };

  it('caps hold while Redis is up; once it is killed every request is allowed, logged once and counted', async () => {
    // Sent at once, so that the key's bucket (5/s) cannot refill between them however slow the
    // machine: some of the twenty are refused.
    const up = await Promise.all(Array.from({ length: 20 }, async () => (await app.inject({ url: DATA_PATH, headers: { 'x-api-key': key } })).statusCode));
    expect(up.filter((s) => s === 429).length).toBeGreaterThan(0);
    expect(metering.limiter.stats().failOpen).toBe(0);
    expect(await failOpenSample()).toEqual(['suigw_limiter_store_failures_total{backend="redis",decision="allowed"} 0']);

    await redis.stop('SIGKILL');
    const down = await burst(40);
    // No upstream is configured: an allowed data request is 404 NETWORK_NOT_CONFIGURED.
    expect(new Set(down)).toEqual(new Set([404]));
    expect(metering.limiter.stats().failOpen).toBe(40);
    expect(await failOpenSample()).toEqual(['suigw_limiter_store_failures_total{backend="redis",decision="allowed"} 40']);
    const warnings = lines.map((line) => JSON.parse(line) as { msg: string; failOpen?: number }).filter((l) => l.msg.includes('fail open'));
    expect(warnings).toEqual([expect.objectContaining({ msg: 'rate limiter: Redis unavailable; request allowed (fail open)', failOpen: 1 })]);
  });
});
