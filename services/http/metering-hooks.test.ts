import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTestDatabase, type TestDatabase } from '../../test/support/test-database.js';
import { ApiError, createLogger, loadConfig, ManualClock } from '../core/index.js';
import { Authenticator, createKey, createOrganization } from '../identity/index.js';
import { createMetering, ZKLOGIN_COSTS, type Metering } from '../metering/index.js';
import type { App } from '../route-contract/index.js';
import { buildHttpApp } from './app.js';
import { RequestPipeline } from '../pipeline/index.js';

describe('the metering adapter', () => {
  let db: TestDatabase;
  let metering: Metering;
  const clock = new ManualClock();
  const logger = createLogger('silent');
  const config = loadConfig({ LOG_LEVEL: 'silent', SUIGW_KEY_CACHE_TTL_MS: '0' });
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
      config, database: db.database, clock, logger, healthChecks: [],
      pipeline: new RequestPipeline({ authenticator: new Authenticator({ database: db.database, clock, ttlMs: 0, logger }), meter: metering.meter }),
      capabilities: [route],
    });

  it('refuses a route that declares auth but no cost, like one without auth', async () => {
    await expect(build((app) => app.get('/v1/uncosted', { config: { auth: 'key' } }, async () => ({})))).rejects.toThrow(
      'route GET /mainnet/v1/uncosted declares no cost',
    );
  });

  it('charges through HTTP what the spec says: the price, 2 for a failed prove, 1 for a schema failure or plan refusal, 0 for another 429', async () => {
    // Routes priced like zkLogin's prove, so that each rule gives a different number.
    const app = await build((scope) => {
      const config = { auth: 'key' as const, cost: ZKLOGIN_COSTS.prove };
      const querystring = z.object({ fail: z.enum(['none', 'client', 'plan', 'proof-rate']) });
      scope.get('/v1/priced', { config, schema: { querystring } }, async (request) => {
        switch (request.query.fail) {
          case 'client':
            throw new ApiError('NONCE_MISMATCH');
          case 'plan':
            throw new ApiError('PLAN_REQUIRED');
          case 'proof-rate':
            throw new ApiError('PROOF_RATE_LIMITED', { headers: { 'retry-after': '7' }, fields: { retryAfter: 7 } });
          default:
            return { ok: true };
        }
      });
    });
    await app.ready();
    const { organization, projects } = await createOrganization(db.database.db, clock, {
      name: 'Priced', tier: 'team', projects: [{ name: 'Default', network: 'mainnet' }],
    });
    const { apiKey } = await createKey(db.database, clock, { kind: 'operator' }, {
      organizationId: organization.id, projectId: projects[0]!.id, name: 'k', scopes: ['data'],
    });
    const call = async (query: string) => {
      const response = await app.inject({ url: `/mainnet/v1/priced${query}`, headers: { 'x-api-key': apiKey } });
      return { status: response.statusCode, left: 25_000_000 - Number(response.headers['x-svc-credit-remaining']) };
    };
    expect(await call('?fail=none')).toEqual({ status: 200, left: 50 });
    expect(await call('?fail=client')).toEqual({ status: 400, left: 52 });
    expect(await call('?fail=bogus')).toEqual({ status: 400, left: 53 });
    expect(await call('?fail=plan')).toEqual({ status: 403, left: 54 });
    expect(await call('?fail=proof-rate')).toEqual({ status: 429, left: 54 });
    await app.close();
  });
});
