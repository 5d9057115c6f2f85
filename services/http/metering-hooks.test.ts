import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/support/test-database.js';
import { createLogger, loadConfig, ManualClock } from '../core/index.js';
import { Authenticator } from '../identity/index.js';
import { createMetering, type Metering } from '../metering/index.js';
import type { App } from '../route-contract/index.js';
import { buildHttpApp } from './app.js';

describe('the metering adapter at start-up', () => {
  let db: TestDatabase;
  let metering: Metering;
  const clock = new ManualClock();
  const logger = createLogger('silent');
  const config = loadConfig({ LOG_LEVEL: 'silent' });
  beforeAll(async () => {
    db = await createTestDatabase();
    metering = await createMetering({ config, database: db.database, clock, logger });
  });
  afterAll(async () => {
    await metering.close();
    await db.drop();
  });

  const build = (route: (app: App) => void) =>
    buildHttpApp({
      config, database: db.database, clock, logger, healthChecks: [], meter: metering.meter,
      authenticator: new Authenticator({ database: db.database, clock, ttlMs: 0, logger }),
      capabilities: [route],
    });

  it('refuses a route that declares auth but no cost, like one without auth', async () => {
    await expect(build((app) => app.get('/v1/uncosted', { config: { auth: 'key' } }, async () => ({})))).rejects.toThrow(
      'route GET /mainnet/v1/uncosted declares no cost',
    );
  });

  it('accepts a route that declares both', async () => {
    const app = await build((scope) => scope.get('/v1/costed', { config: { auth: 'none', cost: 'free' } }, async () => ({ ok: true })));
    await app.ready();
    expect((await app.inject({ url: '/mainnet/v1/costed' })).json()).toEqual({ ok: true });
    await app.close();
  });
});
