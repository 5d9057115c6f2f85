import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeUpstream } from '../../test/support/fake-upstream.js';
import { ALL_SCOPES, createTestApp, type TestApp } from '../../test/support/test-app.js';
import { createKey, createOrganization, type KeyRateLimit } from '../identity/index.js';
import { type Tier } from '../plans/index.js';
import { defaultUpstreamPolicy, SuiUpstream } from '../upstream/index.js';

const policy = {
  ...defaultUpstreamPolicy, deadlineMs: 800, attemptTimeoutMs: 300, retries: 0, retryBaseDelayMs: 10, retryMaxDelayMs: 20,
  breakerFailureThreshold: 1_000, breakerCooldownMs: 60_000, healthTimeoutMs: 3_000,
};
const OBJECT = `/mainnet/v1/objects/0x${'5'.repeat(64)}`;
const BAD_OBJECT = '/mainnet/v1/objects/0xnot-hex';
/** ManualClock's start (2026-11-22 12:00 UTC): credits replenish on the 1st of the next month. */
const REPLENISH = '2026-12-01T00:00:00.000Z';

interface Caller {
  organizationId: string;
  key: string;
  keyId: string;
  reader: string;
}

describe('metering through HTTP: headers, the three 429s, and what is charged', () => {
  let fake: Awaited<ReturnType<typeof startFakeUpstream>>;
  let upstream: SuiUpstream;
  let t: TestApp;

  async function newCaller(options: { tier?: Tier; rateLimit?: Partial<KeyRateLimit>; prepaidMicroUsd?: bigint } = {}): Promise<Caller> {
    const { organization, projects } = await createOrganization(t.db.database.db, t.clock, {
      name: 'Metered',
      tier: options.tier ?? 'team',
      projects: [{ name: 'Default', network: 'mainnet' }],
    });
    if (options.prepaidMicroUsd !== undefined) {
      await t.db.database.db.updateTable('organizations').set({ prepaid_micro_usd: options.prepaidMicroUsd }).where('id', '=', organization.id).execute();
    }
    const key = await createKey(t.db.database, t.clock, { kind: 'operator' }, {
      organizationId: organization.id,
      projectId: projects[0]!.id,
      name: 'k',
      scopes: ALL_SCOPES,
      expiresInDays: 30,
      rateLimit: options.rateLimit,
    });
    // The organization's other key, without caps: it reads credits and usage as an administrator would.
    const reader = await createKey(t.db.database, t.clock, { kind: 'operator' }, {
      organizationId: organization.id, projectId: projects[0]!.id, name: 'reader', scopes: ALL_SCOPES, expiresInDays: 30,
    });
    return { organizationId: organization.id, key: key.apiKey, keyId: key.id, reader: reader.apiKey };
  }

  const uncappedReader = (caller: Caller): Caller => ({ ...caller, key: caller.reader });
  const get = (caller: Caller, url: string, headers: Record<string, string> = {}) =>
    t.app.inject({ url, headers: { 'x-api-key': caller.key, ...headers } });
  /** Credits left, read from a free management call (which must not change them). */
  const credits = async (caller: Caller) => Number((await get({ ...caller, key: caller.reader }, '/mainnet/v1/account')).headers['x-svc-credit-remaining']);

  beforeAll(async () => {
    fake = await startFakeUpstream();
    upstream = new SuiUpstream({ network: 'mainnet', endpoints: { grpcUrl: fake.grpcUrl, graphqlUrl: fake.graphqlUrl }, policy });
    t = await createTestApp({ extra: { upstreams: new Map([['mainnet', upstream]]) } });
  });
  afterAll(async () => {
    await t.close();
    await upstream.close();
    await fake.stop();
  });
  beforeEach(() => {
    fake.state.behaviour = 'ok';
  });

  it('a 200 carries the plan rate and the credit headers, and costs 1 credit', async () => {
    const caller = await newCaller();
    const response = await get(caller, OBJECT);
    expect(response.statusCode, response.body).toBe(200);
    // team: 50 requests per second, 25,000,000 credits a month.
    expect(response.headers['x-ratelimit-limit']).toBe('50');
    expect(response.headers['x-ratelimit-remaining']).toBe('49');
    expect(response.headers['x-ratelimit-reset']).toBe(String(t.clock.now() / 1000 + 1));
    expect(response.headers['x-svc-credit-remaining']).toBe('24999999');
    expect(response.headers['x-svc-credit-replenish-date']).toBe(REPLENISH);
  });

  it("management calls are free and do not spend the plan's rate, carry the headers too, and pass the key's own caps", async () => {
    const caller = await newCaller({ tier: 'free', rateLimit: { perKeyRps: 1 } });
    const uncapped = { ...caller, key: caller.reader };
    for (let i = 0; i < 15; i += 1) {
      const response = await get(uncapped, '/mainnet/v1/keys');
      expect(response.statusCode).toBe(200);
      expect(response.headers['x-ratelimit-limit']).toBe('10');
      expect(response.headers['x-ratelimit-remaining']).toBe('10');
      expect(response.headers['x-svc-credit-remaining']).toBe('1000000');
    }
    // Spec, Limits: the per-key and per-IP caps "apply to requests", management calls included.
    expect((await get(caller, '/mainnet/v1/keys')).statusCode).toBe(200);
    const capped = await get(caller, '/mainnet/v1/keys');
    expect(capped.statusCode).toBe(429);
    expect(capped.json()).toEqual({ error: 'Rate limit exceeded', code: 'RATE_LIMIT_EXCEEDED', requestId: capped.headers['x-request-id'] });
    expect(capped.headers['x-ratelimit-remaining']).toBe('10');
    expect(capped.headers['x-svc-credit-remaining']).toBe('1000000');
  });

  it("management writes have an allowance of their own (the plan's rate, ten seconds' worth at once), apart from the data plane's", async () => {
    const caller = await newCaller({ tier: 'free' });
    const patch = () => t.app.inject({ method: 'PATCH', url: `/mainnet/v1/keys/${caller.keyId}`, headers: { 'x-api-key': caller.reader }, payload: { name: 'k' } });
    // free: 10 requests per second, so 100 writes at once, then ten a second.
    for (let i = 0; i < 100; i += 1) expect((await patch()).statusCode).toBe(200);
    const refused = await patch();
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({
      error: 'Organization rate limit exceeded', message: "The organization's management calls exceed its plan's rate (10 per second, 100 at once).",
      retryAfter: 1, requestId: refused.headers['x-request-id'],
    });
    expect(refused.headers['x-svc-credit-remaining']).toBe('1000000');
    // The data plane's allowance is untouched, and reads are not counted.
    expect((await get(caller, OBJECT)).headers['x-ratelimit-remaining']).toBe('9');
    expect((await get(uncappedReader(caller), '/mainnet/v1/keys')).statusCode).toBe(200);
    // A second later, ten more (the clock stays on whole seconds for the tests after this one).
    t.clock.advance(1_000);
    for (let i = 0; i < 10; i += 1) expect((await patch()).statusCode).toBe(200);
    expect((await patch()).statusCode).toBe(429);
  });

  // Reads were not counted at all: a tenant could send GET /v1/usage (which flushes the process's
  // usage of every organization and aggregates up to 400 days), GET /v1/keys, GET
  // /v1/billing/onchain (a read of the chain) ... as fast as it could, the database and the node
  // answering them for every tenant.
  it('management reads have an allowance of their own too (the plan\'s rate, ten seconds\' worth at once), apart from the writes\'', async () => {
    const caller = await newCaller({ tier: 'free' });
    const usage = () => get(uncappedReader(caller), '/mainnet/v1/usage');
    for (let i = 0; i < 100; i += 1) expect((await usage()).statusCode).toBe(200);
    const refused = await usage();
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({
      error: 'Organization rate limit exceeded', message: "The organization's management calls exceed its plan's rate (10 per second, 100 at once).",
      retryAfter: 1, requestId: refused.headers['x-request-id'],
    });
    expect((await get(uncappedReader(caller), '/mainnet/v1/keys')).statusCode).toBe(429);
    // A HEAD is a read: the reads' allowance, not the writes'.
    expect((await t.app.inject({ method: 'HEAD', url: '/mainnet/v1/keys', headers: { 'x-api-key': uncappedReader(caller).key } })).statusCode).toBe(429);
    // Writes and the data plane keep their own allowances.
    const patch = await t.app.inject({ method: 'PATCH', url: `/mainnet/v1/keys/${caller.keyId}`, headers: { 'x-api-key': caller.reader }, payload: { name: 'k' } });
    expect(patch.statusCode).toBe(200);
    expect((await get(caller, OBJECT)).headers['x-ratelimit-remaining']).toBe('9');
    t.clock.advance(1_000);
    for (let i = 0; i < 10; i += 1) expect((await usage()).statusCode).toBe(200);
    expect((await usage()).statusCode).toBe(429);
  });

  it('a schema failure costs 1 credit; an upstream 4xx costs the price; a 5xx costs nothing', async () => {
    const caller = await newCaller();
    const before = await credits(caller);
    const invalid = await get(caller, BAD_OBJECT);
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json()).toMatchObject({ code: 'INVALID_OBJECT_ID' });
    expect(Number(invalid.headers['x-svc-credit-remaining'])).toBe(before - 1);
    fake.state.behaviour = 'not_found';
    const missing = await get(caller, OBJECT);
    expect(missing.statusCode).toBe(404);
    expect(Number(missing.headers['x-svc-credit-remaining'])).toBe(before - 2);
    fake.state.behaviour = 'error';
    const failed = await get(caller, OBJECT);
    expect(failed.statusCode).toBe(502);
    expect(failed.headers['x-ratelimit-limit']).toBe('50');
    expect(Number(failed.headers['x-svc-credit-remaining'])).toBe(before - 2);
    expect(await credits(caller)).toBe(before - 2);
  });

  it('per-key cap: 429 RATE_LIMIT_EXCEEDED with Retry-After, not billed; whole again a second later', async () => {
    const caller = await newCaller({ rateLimit: { perKeyRps: 2 } });
    const before = await credits(caller);
    expect((await get(caller, OBJECT)).statusCode).toBe(200);
    expect((await get(caller, OBJECT)).statusCode).toBe(200);
    const refused = await get(caller, OBJECT);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.json()).toEqual({ error: 'Rate limit exceeded', code: 'RATE_LIMIT_EXCEEDED', requestId: refused.headers['x-request-id'] });
    expect(refused.headers['x-ratelimit-limit']).toBe('50');
    expect(refused.headers['x-ratelimit-remaining']).toBe('48');
    expect(Number(refused.headers['x-svc-credit-remaining'])).toBe(before - 2);
    t.clock.advance(1_000);
    expect((await get(caller, OBJECT)).statusCode).toBe(200);
    expect(await credits(caller)).toBe(before - 3);
  });

  it('per-IP cap: the same 429 RATE_LIMIT_EXCEEDED (it does not say which cap), per visitor IP', async () => {
    const caller = await newCaller({ rateLimit: { perIpRps: 1 } });
    const before = await credits(caller);
    const from = (ip: string) => t.app.inject({ url: OBJECT, remoteAddress: ip, headers: { 'x-api-key': caller.key } });
    expect((await from('10.0.0.1')).statusCode).toBe(200);
    const refused = await from('10.0.0.1');
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.json()).toEqual({ error: 'Rate limit exceeded', code: 'RATE_LIMIT_EXCEEDED', requestId: refused.headers['x-request-id'] });
    expect((await from('10.0.0.2')).statusCode).toBe(200);
    expect(await credits(caller)).toBe(before - 2);
  });

  it('organization-wide rate: 429 without code, body retryAfter, billed', async () => {
    const caller = await newCaller({ tier: 'free' });
    const before = await credits(caller);
    for (let i = 0; i < 10; i += 1) expect((await get(caller, OBJECT)).statusCode).toBe(200);
    const refused = await get(caller, OBJECT);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({ error: 'Organization rate limit exceeded', retryAfter: 1, requestId: refused.headers['x-request-id'] });
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers['x-ratelimit-limit']).toBe('10');
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    expect(refused.headers['x-ratelimit-reset']).toBe(String(t.clock.now() / 1000 + 1));
    expect(Number(refused.headers['x-svc-credit-remaining'])).toBe(before - 11);
    t.clock.advance(100);
    const next = await get(caller, OBJECT);
    expect(next.statusCode).toBe(200);
    expect(next.headers['x-ratelimit-remaining']).toBe('0');
  });

  it('credits spent: 429 CU_QUOTA_EXCEEDED, not charged; management still works at zero balance', async () => {
    // A wallet organization has no monthly credits: 30 micro-USD prepaid = 3 credits.
    const caller = await newCaller({ tier: 'wallet', prepaidMicroUsd: 30n });
    for (const left of ['2', '1', '0']) {
      const response = await get(caller, OBJECT);
      expect(response.statusCode).toBe(200);
      expect(response.headers['x-svc-credit-remaining']).toBe(left);
    }
    const refused = await get(caller, OBJECT);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({ error: 'Monthly credits spent', code: 'CU_QUOTA_EXCEEDED', requestId: refused.headers['x-request-id'] });
    expect(refused.headers['x-svc-credit-remaining']).toBe('0');
    expect(refused.headers['x-svc-credit-replenish-date']).toBe(REPLENISH);
    const account = await get(caller, '/mainnet/v1/account');
    expect(account.statusCode).toBe(200);
    expect(account.headers['x-svc-credit-remaining']).toBe('0');
  });

  it('an unauthenticated request is not metered (no headers, nothing recorded)', async () => {
    const response = await t.app.inject({ url: OBJECT });
    expect(response.statusCode).toBe(401);
    expect(response.headers['x-ratelimit-limit']).toBeUndefined();
    expect(response.headers['x-svc-credit-remaining']).toBeUndefined();
  });

  it.each([
    ['from=0000-01-01T00:00:00Z&to=0001-01-01T00:00:00Z'],
    ['from=9999-12-31T23:00:00Z&to=9999-12-31T23:59:59-12:00&interval=hour'],
  ])('GET /v1/usage?%s: dates PostgreSQL cannot store are 400 VALIDATION_FAILED (they were a 500)', async (query) => {
    const caller = await newCaller();
    const response = await get(uncappedReader(caller), `/mainnet/v1/usage?${query}`);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'VALIDATION_FAILED', message: 'from and to must be within the years 0001 to 9999 (UTC).' });
  });

  it('GET /v1/usage: totals, series and per-route counts equal what was answered and charged', async () => {
    const caller = await newCaller({ rateLimit: { perKeyRps: 5 } });
    for (let i = 0; i < 3; i += 1) expect((await get(caller, OBJECT)).statusCode).toBe(200);
    expect((await get(caller, BAD_OBJECT)).statusCode).toBe(400);
    fake.state.behaviour = 'error';
    expect((await get(caller, OBJECT)).statusCode).toBe(502);
    expect((await get(caller, OBJECT)).statusCode).toBe(429);
    const response = await get(uncappedReader(caller), '/mainnet/v1/usage?interval=hour');
    expect(response.statusCode, response.body).toBe(200);
    const hour = new Date(Math.floor(t.clock.now() / 3_600_000) * 3_600_000).toISOString();
    expect(response.json()).toEqual({
      data: {
        from: '2026-11-01T00:00:00.000Z',
        to: new Date(Math.ceil((t.clock.now() + 1) / 60_000) * 60_000).toISOString(),
        interval: 'hour',
        totals: { requests: 6, credits: 4 },
        series: [{ start: hour, requests: 6, credits: 4 }],
        routes: [{ network: 'mainnet', route: 'GET /v1/objects/:id', requests: 6, credits: 4 }],
      },
    });
    expect(response.headers['x-svc-credit-remaining']).toBe(String(25_000_000 - 4));
  });

  it('GET /v1/usage: another key, another period, and a bad period', async () => {
    const caller = await newCaller();
    expect((await get(caller, OBJECT)).statusCode).toBe(200);
    const none = await get(caller, `/mainnet/v1/usage?keyId=key_other`);
    expect(none.json().data.totals).toEqual({ requests: 0, credits: 0 });
    const before = await get(caller, '/mainnet/v1/usage?from=2026-10-01T00:00:00Z&to=2026-11-01T00:00:00Z');
    expect(before.json().data).toMatchObject({ totals: { requests: 0, credits: 0 }, series: [], routes: [] });
    const reversed = await get(caller, '/mainnet/v1/usage?from=2026-11-02T00:00:00Z&to=2026-11-01T00:00:00Z');
    expect(reversed.statusCode).toBe(400);
    expect(reversed.json()).toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it('GET /v1/usage is in the OpenAPI document with its query and 200 schema', async () => {
    const document = (await t.app.inject({ url: '/v1/openapi.json' })).json();
    const operation = document.paths['/v1/usage']?.get;
    expect(operation.summary).toBe('Read usage');
    expect(operation.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['from', 'interval', 'keyId', 'to']);
    expect(Object.keys(operation.responses['200'].content['application/json'].schema.properties.data.properties).sort()).toEqual(
      ['from', 'interval', 'routes', 'series', 'to', 'totals'],
    );
  });

  it('GET /v1/usage needs the manage scope', async () => {
    const caller = await newCaller();
    const dataOnly = await createKey(t.db.database, t.clock, { kind: 'operator' }, {
      organizationId: caller.organizationId,
      projectId: (await t.db.database.db.selectFrom('projects').select('id').where('organization_id', '=', caller.organizationId).executeTakeFirstOrThrow()).id,
      name: 'data',
      scopes: ['data'],
    });
    const response = await t.app.inject({ url: '/mainnet/v1/usage', headers: { 'x-api-key': dataOnly.apiKey } });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({ code: 'INSUFFICIENT_SCOPE' });
  });
});
