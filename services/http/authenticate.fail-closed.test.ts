import type { FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/support/test-app.js';
import { Authenticator } from '../identity/index.js';
import type { RouteAuth } from '../route-contract/index.js';
import { buildHttpApp } from './app.js';
import { authenticationHook } from './authenticate.js';
import { createLogger } from '../core/index.js';
import { createMetering } from '../metering/index.js';
import { RequestPipeline } from '../pipeline/index.js';

/**
 * The start-up check keeps undeclared routes out of the real app, so the request-time refusal is
 * proven on the hook itself, with requests as fastify would hand them over.
 */
describe('the authentication hook fails closed at request time', () => {
  let t: TestApp;
  let hook: ReturnType<typeof authenticationHook>;
  beforeAll(async () => {
    t = await createTestApp();
    hook = authenticationHook(new RequestPipeline({ authenticator: new Authenticator({ database: t.db.database, clock: t.clock, ttlMs: 0 }), meter: undefined }), t.config.networks);
  });
  afterAll(async () => t.close());

  const request = (url: string, auth: RouteAuth | undefined, key?: string) =>
    ({
      is404: false,
      url,
      routeOptions: { url, config: auth === undefined ? {} : { auth } },
      headers: key === undefined ? {} : { 'x-api-key': key },
      query: {},
    }) as unknown as FastifyRequest;

  it('a route declaring no auth: 401 without a key, 403 with a valid one', async () => {
    await expect(hook(request('/mainnet/v1/undeclared', undefined))).rejects.toMatchObject({ code: 'API_KEY_MISSING' });
    await expect(hook(request('/mainnet/v1/undeclared', undefined, t.adminKey))).rejects.toMatchObject({ code: 'INSUFFICIENT_SCOPE' });
  });

  it('a keyed route outside the network scopes: 401 without a key, 403 with a valid one', async () => {
    await expect(hook(request('/v2/elsewhere', 'key'))).rejects.toMatchObject({ code: 'API_KEY_MISSING' });
    await expect(hook(request('/v2/elsewhere', { scope: 'data' }, t.adminKey))).rejects.toMatchObject({ code: 'NETWORK_MISMATCH' });
  });

  it('a declared route with a valid key passes and carries the principal', async () => {
    const accepted = request('/mainnet/v1/declared', { scope: 'manage' }, t.adminKey);
    await hook(accepted);
    expect(accepted.principal?.keyId).toBe(t.adminKeyId);
    expect(accepted.network).toBe('mainnet');
  });

  it('an app with a route declaring no auth (in a network scope or at the root) does not start', async () => {
    const logger = createLogger('silent');
    const metering = await createMetering({ config: t.config, database: t.db.database, clock: t.clock, logger });
    const pipeline = new RequestPipeline({ authenticator: new Authenticator({ database: t.db.database, clock: t.clock, ttlMs: 0 }), meter: metering.meter });
    const base = { config: t.config, database: t.db.database, clock: t.clock, logger, pipeline, healthChecks: [] };
    try {
      // Priced, so that the missing auth is the only thing wrong with it.
      const inScope = await buildHttpApp({ ...base, capabilities: [(scope) => void scope.get('/v1/undeclared', { config: { cost: 'free' } }, async () => ({}))] });
      await expect(inScope.ready()).rejects.toThrow('routes declare no auth: GET /mainnet/v1/undeclared');
      const atRoot = await buildHttpApp({ ...base, capabilities: [] });
      atRoot.get('/undeclared', async () => ({}));
      await expect(atRoot.ready()).rejects.toThrow('routes declare no auth: GET /undeclared');
    } finally {
      await metering.close();
    }
  });
});
