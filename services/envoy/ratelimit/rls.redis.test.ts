import { randomUUID } from 'node:crypto';
import { credentials } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database.js';
import { createLogger, deriveSubkey, loadConfig, ManualClock } from '../../core/index.js';
import { Authenticator, createKey, createOrganization, grantPrepaidCredit, SignedIdentity, type KeyRateLimit } from '../../identity/index.js';
import { type Tier } from '../../plans/index.js';
import { createMetering, CreditLedger, UsageRecorder, type Metering } from '../../metering/index.js';
import type { RateLimitResponse } from '../envoy-types.js';
import { rateLimitService } from '../../../test/support/envoy-protos.js';
import { startEnvoyServices, type EnvoyServiceServer } from '../server.js';
import { DESCRIPTOR_KEYS } from './descriptors.js';
import { RateLimitCheck } from './should-rate-limit.js';
import { assemblePipeline } from '../../pipeline/index.js';

const ROUTE = { method: 'GET', path: '/mainnet/v1/objects/0x1', network: 'mainnet' as const, route: 'GET /v1/objects/:id', cost: 1 };
const logger = createLogger('silent');

/**
 * `suigw ratelimit` over the real Redis limiter, called as Envoy calls it: the descriptor built
 * from DESCRIPTOR_KEYS' actions (the identity header, the remote address).
 */
describe('the ratelimit service (RLS) on Redis', () => {
  let db: TestDatabase;
  const clock = new ManualClock();
  let identity: SignedIdentity;
  let authenticator: Authenticator;
  const started: { server: EnvoyServiceServer; metering: Metering }[] = [];

  async function startRls(redisUrl: string) {
    const config = loadConfig({ LOG_LEVEL: 'silent', REDIS_URL: redisUrl, SUIGW_REDIS_KEY_PREFIX: `test:${randomUUID()}:` });
    const metering = await createMetering({ config, database: db.database, clock, logger });
    const server = await startEnvoyServices({ ratelimit: new RateLimitCheck({ pipeline: assemblePipeline({ authenticator, metering }).pipeline, identity, clock }) }, { host: '127.0.0.1', port: 0 }, logger);
    started.push({ server, metering });
    const client = new (rateLimitService())(`127.0.0.1:${server.port}`, credentials.createInsecure());
    return (descriptors: { key: string; value: string }[][]) =>
      new Promise<RateLimitResponse>((resolve, reject) => {
        client.ShouldRateLimit!({ domain: 'suigw', descriptors: descriptors.map((entries) => ({ entries })), hits_addend: 1 }, (error: Error | null, value: RateLimitResponse) =>
          error ? reject(error) : resolve(value),
        );
      });
  }

  async function tokenFor(rateLimit: Partial<KeyRateLimit>, requestId = 'req-1', tier: Tier = 'team'): Promise<string> {
    const { organization, projects } = await createOrganization(db.database.db, clock, { name: 'Rls', tier, projects: [{ name: 'Default', network: 'mainnet' }] });
    const key = await createKey(db.database, clock, { kind: 'operator' }, { organizationId: organization.id, projectId: projects[0]!.id, name: 'k', scopes: ['data'], rateLimit });
    const principal = await authenticator.verify(key.apiKey, '203.0.113.7');
    return identity.sign({ ...ROUTE, requestId, principal });
  }

  const descriptor = (token: string, address = '10.0.0.1') => [
    { key: DESCRIPTOR_KEYS.identity.key, value: token },
    { key: DESCRIPTOR_KEYS.remoteAddress.key, value: address },
  ];

  beforeAll(async () => {
    db = await createTestDatabase();
    identity = new SignedIdentity({ key: deriveSubkey('rls-test-secret-0123456789abcdef0123', 'identity-headers'), clock, maxAgeMs: 30_000 });
    authenticator = new Authenticator({ database: db.database, clock, ttlMs: 0 });
  });
  afterAll(async () => {
    for (const { server, metering } of started) {
      await server.close();
      await metering.close();
    }
    await db.drop();
  });

  it('admitted: OK with the organization limit, what remains and when it is whole again; nothing to add to the response', async () => {
    const rls = await startRls('redis://127.0.0.1:6379');
    const answer = await rls([descriptor(await tokenFor({}))]);
    expect(answer.overall_code).toBe(1);
    expect(answer.statuses).toHaveLength(1);
    expect(answer.statuses[0]).toMatchObject({ code: 1, current_limit: { requests_per_unit: 50, unit: 1 }, limit_remaining: 49 });
    expect(answer.response_headers_to_add).toEqual([]);
  });

  it('per-key cap on Redis: OVER_LIMIT with the spec\'s 429 body and headers', async () => {
    const rls = await startRls('redis://127.0.0.1:6379');
    const token = await tokenFor({ perKeyRps: 1 }, 'req-cap');
    expect((await rls([descriptor(token)])).overall_code).toBe(1);
    const refused = await rls([descriptor(token)]);
    expect(refused.overall_code).toBe(2);
    expect(JSON.parse(Buffer.from(refused.raw_body!).toString())).toEqual({ error: 'Rate limit exceeded', code: 'RATE_LIMIT_EXCEEDED', requestId: 'req-cap' });
    const headers = Object.fromEntries(refused.response_headers_to_add.map((h) => [h.key, h.value]));
    expect(headers).toMatchObject({
      'content-type': 'application/json; charset=utf-8',
      'x-request-id': 'req-cap',
      'retry-after': '1',
      'x-ratelimit-limit': '50',
      'x-svc-credit-remaining': '25000000',
      'x-svc-credit-replenish-date': '2026-12-01T00:00:00.000Z',
    });
  });

  it('no identity descriptor (public routes), or a token that does not verify: OK, not limited here', async () => {
    const rls = await startRls('redis://127.0.0.1:6379');
    const none = await rls([[{ key: DESCRIPTOR_KEYS.remoteAddress.key, value: '10.0.0.1' }], [{ key: 'other', value: 'x' }]]);
    expect(none.overall_code).toBe(1);
    expect(none.statuses.map((status) => status.code)).toEqual([1, 1]);
    const token = await tokenFor({ perKeyRps: 1 });
    const forged = `${token.split('.')[0]}.${'A'.repeat(43)}`;
    for (let i = 0; i < 3; i += 1) expect((await rls([descriptor(forged)])).overall_code).toBe(1);
  });

  it('Redis down: fail open (allowed), as the gateway does; credits still checked', async () => {
    // Nothing listens on port 1: every decision fails at once and is allowed.
    const rls = await startRls('redis://127.0.0.1:1');
    const token = await tokenFor({ perKeyRps: 1 });
    for (let i = 0; i < 3; i += 1) expect((await rls([descriptor(token)])).overall_code).toBe(1);
    expect(started.at(-1)!.metering.limiter.stats().failOpen).toBe(3);
    // A wallet organization without prepaid credit has nothing to spend: refused by the ledger.
    const broke = await rls([descriptor(await tokenFor({}, 'req-broke', 'wallet'))]);
    expect(broke.overall_code).toBe(2);
    expect(JSON.parse(Buffer.from(broke.raw_body!).toString())).toEqual({ error: 'Monthly credits spent', code: 'CU_QUOTA_EXCEEDED', requestId: 'req-broke' });
  });

  it('a balance below zero (processes over-spent between flushes): management calls pass (spec: they work at zero balance), paid calls are refused', async () => {
    const rls = await startRls('redis://127.0.0.1:6379');
    const { ledger } = started.at(-1)!.metering;
    const { organization, projects } = await createOrganization(db.database.db, clock, { name: 'Rls', tier: 'wallet', projects: [{ name: 'Default', network: 'mainnet' }] });
    await grantPrepaidCredit(db.database.db, clock, organization.id, 1_000n, 'test'); // 100 credits
    const key = await createKey(db.database, clock, { kind: 'operator' }, { organizationId: organization.id, projectId: projects[0]!.id, name: 'k', scopes: ['data', 'manage'] });
    const principal = await authenticator.verify(key.apiKey, '203.0.113.7');
    // The service behind Envoy admitted all 100 credits (this ledger's view); another process charged 50 and flushed them.
    expect((await ledger.reserve(organization.id, 100)).ok).toBe(true);
    const other = new CreditLedger({ db: db.database.db, clock, logger });
    const otherUsage = new UsageRecorder({ db: db.database.db, clock, logger, flushIntervalMs: 0, onFlushed: (w) => other.reconcile(w) });
    expect((await other.reserve(organization.id, 50)).ok).toBe(true);
    otherUsage.record({ organizationId: organization.id, keyId: 'key_other', network: 'mainnet', route: ROUTE.route, credits: 50 });
    await otherUsage.flush();
    await ledger.reconcile([]);

    for (const [method, route] of [['GET', 'GET /v1/keys'], ['DELETE', 'DELETE /v1/keys/:id']] as const) {
      const management = identity.sign({ method, path: `/mainnet${route.slice(method.length + 1)}`, network: 'mainnet', route, cost: 'free', requestId: 'req-free', principal });
      expect((await rls([descriptor(management)])).overall_code).toBe(1);
    }
    const paid = await rls([descriptor(identity.sign({ ...ROUTE, requestId: 'req-paid', principal }))]);
    expect(paid.overall_code).toBe(2);
    expect(JSON.parse(Buffer.from(paid.raw_body!).toString())).toEqual({ error: 'Monthly credits spent', code: 'CU_QUOTA_EXCEEDED', requestId: 'req-paid' });
  });
});
