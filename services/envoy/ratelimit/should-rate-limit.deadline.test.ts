import http2 from 'node:http2';
import { credentials } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database.js';
import { rateLimitService } from '../../../test/support/envoy-protos.js';
import { createLogger, deriveSubkey, frameMessage, loadConfig, ManualClock } from '../../core/index.js';
import { Authenticator, createKey, createOrganization, SignedIdentity } from '../../identity/index.js';
import { createMetering, type Metering } from '../../metering/index.js';
import { assemblePipeline } from '../../pipeline/index.js';
import type { RateLimitResponse } from '../envoy-types.js';
import { startEnvoyServices, type EnvoyServiceServer } from '../server.js';
import { DESCRIPTOR_KEYS } from './descriptors.js';
import { RateLimitCheck } from './should-rate-limit.js';

const ROUTE = { method: 'GET', path: '/mainnet/v1/objects/0x1', network: 'mainnet' as const, route: 'GET /v1/objects/:id', cost: 1 };
const SHOULD_RATE_LIMIT = '/envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit';
const logger = createLogger('silent');

/**
 * A refusal Envoy never received (past the call's deadline: Envoy failed open and the service
 * behind it charged the request) must not be billed here too. The in-memory limiter on the test
 * clock keeps the organization's window still, so the 11th request of a second is always refused.
 */
describe('the ratelimit service: a refusal is billed only when it is sent', () => {
  let db: TestDatabase;
  let metering: Metering;
  let server: EnvoyServiceServer;
  let identity: SignedIdentity;
  let authenticator: Authenticator;
  const clock = new ManualClock();

  beforeAll(async () => {
    db = await createTestDatabase();
    identity = new SignedIdentity({ key: deriveSubkey('rls-test-secret-0123456789abcdef0123', 'identity-headers'), clock, maxAgeMs: 30_000 });
    authenticator = new Authenticator({ database: db.database, clock, ttlMs: 0 });
    metering = await createMetering({ config: loadConfig({ LOG_LEVEL: 'silent' }), database: db.database, clock, logger });
    server = await startEnvoyServices({ ratelimit: new RateLimitCheck({ pipeline: assemblePipeline({ authenticator, metering }).pipeline, identity, clock }) }, { host: '127.0.0.1', port: 0 }, logger);
  });
  afterAll(async () => {
    await server?.close();
    await metering?.close();
    await db?.drop();
  });

  async function freeCaller(): Promise<{ token: string; organizationId: string }> {
    const { organization, projects } = await createOrganization(db.database.db, clock, { name: 'Rls', tier: 'free', projects: [{ name: 'Default', network: 'mainnet' }] });
    const key = await createKey(db.database, clock, { kind: 'operator' }, { organizationId: organization.id, projectId: projects[0]!.id, name: 'k', scopes: ['data'] });
    const principal = await authenticator.verify(key.apiKey, '203.0.113.7');
    return { token: identity.sign({ ...ROUTE, requestId: 'req-late', principal }), organizationId: organization.id };
  }

  const request = (token: string) => ({
    domain: 'suigw',
    descriptors: [{ entries: [{ key: DESCRIPTOR_KEYS.identity.key, value: token }, { key: DESCRIPTOR_KEYS.remoteAddress.key, value: '10.0.0.1' }] }],
    hits_addend: 1,
  });

  /** As Envoy calls it (grpc-js), in time. */
  function call(token: string): Promise<RateLimitResponse> {
    const client = new (rateLimitService())(`127.0.0.1:${server.port}`, credentials.createInsecure());
    return new Promise<RateLimitResponse>((resolve, reject) => {
      client.ShouldRateLimit!(request(token), (error: Error | null, value: RateLimitResponse) => (error ? reject(error) : resolve(value)));
    }).finally(() => client.close());
  }

  /** As raw HTTP/2 with a `grpc-timeout` (grpc-js sends nothing once its deadline has passed): the answer's grpc-status. */
  async function callWithTimeout(token: string, grpcTimeout: string): Promise<string | undefined> {
    const message = rateLimitService().service.ShouldRateLimit!.requestSerialize(request(token));
    const session = http2.connect(`http://127.0.0.1:${server.port}`);
    try {
      return await new Promise((resolve, reject) => {
        const stream = session.request({ ':method': 'POST', ':path': SHOULD_RATE_LIMIT, 'content-type': 'application/grpc', te: 'trailers', 'grpc-timeout': grpcTimeout });
        let status: string | undefined;
        stream.on('response', (headers) => (status ??= headers['grpc-status'] as string | undefined));
        stream.on('trailers', (trailers) => (status ??= trailers['grpc-status'] as string | undefined));
        stream.resume();
        stream.on('close', () => resolve(status));
        stream.on('error', reject);
        stream.end(frameMessage(message));
      });
    } finally {
      session.close();
    }
  }

  async function usageOf(organizationId: string): Promise<{ requests: number; credits: number }> {
    await metering.usage.flush();
    const row = await db.database.db
      .selectFrom('usage_minutes')
      .select((eb) => [eb.fn.coalesce(eb.fn.sum<string>('requests'), eb.lit(0)).as('requests'), eb.fn.coalesce(eb.fn.sum<string>('credits'), eb.lit(0)).as('credits')])
      .where('organization_id', '=', organizationId)
      .executeTakeFirstOrThrow();
    return { requests: Number(row.requests), credits: Number(row.credits) };
  }

  it('an organization-rate refusal past the deadline: not billed, its reserved credit given back; one in time: billed', async () => {
    const caller = await freeCaller();
    // The free plan's 10 requests a second; admitted requests are charged by the service behind Envoy, not here.
    for (let i = 0; i < 10; i += 1) expect((await call(caller.token)).overall_code).toBe(1);
    // 1 ns: past by the time the decision is made.
    expect(await callWithTimeout(caller.token, '1n')).toBe('4');
    expect(await usageOf(caller.organizationId)).toEqual({ requests: 0, credits: 0 });
    const refused = await call(caller.token);
    expect(refused.overall_code).toBe(2);
    expect(await usageOf(caller.organizationId)).toEqual({ requests: 1, credits: 1 });
    // Of the free plan's 1,000,000 credits only the billed refusal's is gone.
    expect(refused.response_headers_to_add.find((header) => header.key === 'x-svc-credit-remaining')?.value).toBe('999999');
  });
});
