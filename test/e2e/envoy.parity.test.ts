import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { App } from '../../services/route-contract/index.js';
import { pick, startEnvoyStack, type Caller, type ClientAnswer, type ClientRequest, type EnvoyStack } from '../support/envoy-stack.js';

const OBJECT = `/mainnet/v1/objects/0x${'5'.repeat(64)}`;
const WARP = '/mainnet/v1/warp/str_nothere/stream';
const REPLENISH = '2026-12-01T00:00:00.000Z';
const RATE_LIMIT_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'] as const;

/** A GET over a real socket, so Node's HTTP parser handles repeated headers (inject does not parse). */
async function overSocket(app: App, url: string, headers: Record<string, string | string[]>): Promise<ClientAnswer> {
  if (!app.server.listening) await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path: url, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: pick(response.headers), body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
    }).on('error', reject);
  });
}

function withoutRateLimitHeaders(answer: ClientAnswer): ClientAnswer {
  const headers = { ...answer.headers };
  for (const name of RATE_LIMIT_HEADERS) delete headers[name];
  return { ...answer, headers };
}

/**
 * The same requests, by twin callers (same plan, same key settings), through the gateway alone and
 * through authz → signed identity headers → ratelimit → the gateway trusting them: the same
 * status, body, spec headers and charge, for every auth and limit outcome of the spec.
 */
describe('Envoy parity: authz + ratelimit + trusting gateway answer and charge as the gateway alone', () => {
  let s: EnvoyStack;
  let counter = 0;
  beforeAll(async () => {
    s = await startEnvoyStack();
  });
  afterAll(async () => s?.close());
  beforeEach(() => {
    s.fake.state.behaviour = 'ok';
  });

  async function pair(options: Parameters<EnvoyStack['newCaller']>[0] = {}): Promise<[Caller, Caller]> {
    return [await s.newCaller(options), await s.newCaller(options)];
  }

  /**
   * Sends the request both ways (with the caller's key when given); both answers must be equal.
   * Bodies that name the caller's own resources (ids) differ by nature: `body: false` skips them.
   * `refusedAtAuthz`: a 403 of an identified key, where the one documented difference is checked
   * (docs/envoy.md): the gateway adds the organization's X-RateLimit-* headers, authz cannot.
   */
  async function both(request: ClientRequest, callers?: [Caller, Caller], options: { body?: boolean; refusedAtAuthz?: boolean } = {}): Promise<ClientAnswer> {
    counter += 1;
    const id = `parity-${counter}`;
    const withKey = (caller: Caller | undefined) => ({
      ...request,
      headers: { 'x-request-id': id, ...(caller ? { 'x-api-key': caller.key } : {}), ...request.headers },
    });
    const alone = await s.inProcessAnswer(withKey(callers?.[0]));
    // The ratelimit service re-reads credits every usage interval (docs/envoy.md); let it elapse.
    await s.sync();
    const envoy = await s.viaEnvoy(withKey(callers?.[1]));
    if (options.refusedAtAuthz) {
      for (const name of RATE_LIMIT_HEADERS) {
        expect(alone.headers[name], name).toEqual(expect.any(String));
        expect(envoy.headers[name], name).toBeUndefined();
      }
      expect(withoutRateLimitHeaders(envoy)).toEqual(withoutRateLimitHeaders(alone));
      return alone;
    }
    if (options.body === false) expect({ ...envoy, body: undefined }).toEqual({ ...alone, body: undefined });
    else expect(envoy).toEqual(alone);
    return alone;
  }

  async function sameCharge(callers: [Caller, Caller], expected: { requests: number; credits: number }): Promise<void> {
    expect(await s.charged(callers[0].organizationId)).toEqual(expected);
    expect(await s.charged(callers[1].organizationId)).toEqual(expected);
  }

  it('no key: 401 without code; nothing metered', async () => {
    const answer = await both({ url: OBJECT });
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ error: 'Missing API key', requestId: answer.headers['x-request-id'] });
    expect(answer.headers['x-ratelimit-limit']).toBeUndefined();
  });

  it('invalid key: 401 without code', async () => {
    const answer = await both({ url: OBJECT, headers: { 'x-api-key': `svc_pat_${'x'.repeat(40)}` } });
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ error: 'Invalid API key', requestId: answer.headers['x-request-id'] });
  });

  it('disabled key: 401 "Invalid API key" with its message', async () => {
    const callers = await pair();
    await s.database.db.updateTable('api_keys').set({ enabled: false }).where('id', 'in', callers.map((c) => c.keyId)).execute();
    const answer = await both({ url: OBJECT }, callers);
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ error: 'Invalid API key', message: 'This API key has been disabled.', requestId: answer.headers['x-request-id'] });
  });

  it('expired key: 401 API_KEY_EXPIRED', async () => {
    const callers = await pair();
    const expiry = new Date(s.clock.now() - 1_000);
    await s.database.db.updateTable('api_keys').set({ expires_at: expiry }).where('id', 'in', callers.map((c) => c.keyId)).execute();
    const answer = await both({ url: OBJECT }, callers);
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({
      error: 'API key expired', code: 'API_KEY_EXPIRED', message: `This API key expired at ${expiry.toISOString()}.`, requestId: answer.headers['x-request-id'],
    });
  });

  it('wrong network: 403 NETWORK_MISMATCH', async () => {
    const callers = await pair({ network: 'testnet' });
    const answer = await both({ url: OBJECT }, callers, { refusedAtAuthz: true });
    expect(answer.status).toBe(403);
    expect(answer.body).toMatchObject({ code: 'NETWORK_MISMATCH', message: 'This key is bound to testnet; use the testnet endpoint instead of mainnet.' });
  });

  it('missing scope: 403 INSUFFICIENT_SCOPE', async () => {
    const callers = await pair({ scopes: ['manage'] });
    const answer = await both({ url: OBJECT }, callers, { refusedAtAuthz: true });
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual({ error: 'Insufficient scope', code: 'INSUFFICIENT_SCOPE', message: "This operation needs the 'data' scope.", requestId: answer.headers['x-request-id'] });
  });

  it('origin refused: 403 ORIGIN_NOT_ALLOWED; the allowed origin passes', async () => {
    const callers = await pair({ allowedOrigins: ['https://app.example'] });
    const refused = await both({ url: OBJECT, headers: { origin: 'https://evil.example' } }, callers, { refusedAtAuthz: true });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'ORIGIN_NOT_ALLOWED', message: 'Origin https://evil.example is not allowed for this key.' });
    expect((await both({ url: OBJECT, headers: { origin: 'https://app.example' } }, callers)).status).toBe(200);
  });

  it('the api_key query parameter on a REST route: 401 API_KEY_INVALID', async () => {
    const callers = await pair();
    const answer = await both({ url: `${OBJECT}?api_key=${callers[0].key}` });
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ error: 'Invalid API key' });
  });

  it('ok: 200 with the same rate-limit and credit headers, 1 credit charged', async () => {
    const callers = await pair();
    const answer = await both({ url: OBJECT }, callers);
    expect(answer.status).toBe(200);
    expect(answer.headers).toMatchObject({
      'x-ratelimit-limit': '50',
      'x-ratelimit-remaining': '49',
      'x-ratelimit-reset': String(s.clock.now() / 1000 + 1),
      'x-svc-credit-remaining': '24999999',
      'x-svc-credit-replenish-date': REPLENISH,
    });
    await sameCharge(callers, { requests: 1, credits: 1 });
  });

  it('an upstream 5xx: the same 502, not charged', async () => {
    const callers = await pair();
    s.fake.state.behaviour = 'error';
    expect((await both({ url: OBJECT }, callers)).status).toBe(502);
    await sameCharge(callers, { requests: 1, credits: 0 });
  });

  it('per-key cap: 429 RATE_LIMIT_EXCEEDED with Retry-After, not billed', async () => {
    const callers = await pair({ rateLimit: { perKeyRps: 2 } });
    expect((await both({ url: OBJECT }, callers)).status).toBe(200);
    expect((await both({ url: OBJECT }, callers)).status).toBe(200);
    const refused = await both({ url: OBJECT }, callers);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: 'Rate limit exceeded', code: 'RATE_LIMIT_EXCEEDED', requestId: refused.headers['x-request-id'] });
    expect(refused.headers).toMatchObject({ 'retry-after': '1', 'x-ratelimit-limit': '50', 'x-ratelimit-remaining': '48', 'x-svc-credit-remaining': '24999998' });
    await sameCharge(callers, { requests: 3, credits: 2 });
  });

  /**
   * Before, the ratelimit service's 429 (a local reply Envoy sends before its cors filter runs)
   * carried no CORS headers: a page could read neither the refusal nor its Retry-After. Now authz
   * signs the Origin to reflect into the token and the 429 carries what the gateway alone puts on it.
   */
  it('a 429 of the limit stage to a page (Origin, a data route) carries the CORS headers; a management route\'s none', async () => {
    const origin = 'https://app.example';
    const callers = await pair({ rateLimit: { perKeyRps: 1 } });
    expect((await both({ url: OBJECT, headers: { origin } }, callers)).status).toBe(200);
    const refused = await both({ url: OBJECT, headers: { origin } }, callers);
    expect([refused.status, (refused.body as { code?: string }).code]).toEqual([429, 'RATE_LIMIT_EXCEEDED']);
    expect(refused.headers).toMatchObject({
      'retry-after': '1',
      'access-control-allow-origin': origin,
      'access-control-expose-headers': 'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-Svc-Credit-Remaining, X-Svc-Credit-Replenish-Date, X-Request-Id, Retry-After',
      vary: 'Origin',
    });
    const managed = await pair({ rateLimit: { perKeyRps: 1 } });
    expect((await both({ url: '/mainnet/v1/keys', headers: { origin } }, managed, { body: false })).status).toBe(200);
    const refusedManagement = await both({ url: '/mainnet/v1/keys', headers: { origin } }, managed);
    expect(refusedManagement.status).toBe(429);
    expect(refusedManagement.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('per-IP cap: the same 429 per visitor address', async () => {
    const callers = await pair({ rateLimit: { perIpRps: 1 } });
    expect((await both({ url: OBJECT, remoteAddress: '10.0.0.1' }, callers)).status).toBe(200);
    const refused = await both({ url: OBJECT, remoteAddress: '10.0.0.1' }, callers);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED' });
    expect((await both({ url: OBJECT, remoteAddress: '10.0.0.2' }, callers)).status).toBe(200);
    await sameCharge(callers, { requests: 3, credits: 2 });
  });

  it('organization rate: 429 without code, retryAfter in the body, billed', async () => {
    const callers = await pair({ tier: 'free' });
    for (let i = 0; i < 10; i += 1) expect((await both({ url: OBJECT }, callers)).status).toBe(200);
    const refused = await both({ url: OBJECT }, callers);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: 'Organization rate limit exceeded', retryAfter: 1, requestId: refused.headers['x-request-id'] });
    expect(refused.headers).toMatchObject({ 'retry-after': '1', 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '0', 'x-svc-credit-remaining': '999989' });
    await sameCharge(callers, { requests: 11, credits: 11 });
  });

  it('credits spent: 429 CU_QUOTA_EXCEEDED, not charged', async () => {
    // A wallet organization has no monthly credits: 30 micro-USD prepaid = 3 credits.
    const callers = await pair({ tier: 'wallet', prepaidMicroUsd: 30n });
    for (const left of ['2', '1', '0']) expect((await both({ url: OBJECT }, callers)).headers['x-svc-credit-remaining']).toBe(left);
    const refused = await both({ url: OBJECT }, callers);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: 'Monthly credits spent', code: 'CU_QUOTA_EXCEEDED', requestId: refused.headers['x-request-id'] });
    expect(refused.headers['x-svc-credit-replenish-date']).toBe(REPLENISH);
    await sameCharge(callers, { requests: 4, credits: 3 });
  });

  it("management routes: free, not spending the plan's rate, within the key's caps, the same headers", async () => {
    const callers = await pair({ tier: 'free', rateLimit: { perKeyRps: 1 } });
    const answer = await both({ url: '/mainnet/v1/keys' }, callers, { body: false });
    expect(answer.status).toBe(200);
    expect(answer.headers).toMatchObject({ 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '10', 'x-svc-credit-remaining': '1000000' });
    const capped = await both({ url: '/mainnet/v1/keys' }, callers);
    expect(capped.status).toBe(429);
    expect(capped.body).toEqual({ error: 'Rate limit exceeded', code: 'RATE_LIMIT_EXCEEDED', requestId: capped.headers['x-request-id'] });
    expect(capped.headers).toMatchObject({ 'retry-after': '1', 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '10', 'x-svc-credit-remaining': '1000000' });
    await sameCharge(callers, { requests: 0, credits: 0 });
  });

  it('repeated Authorization headers: the same answer from the first (Node keeps the first; Envoy joins them with a comma)', async () => {
    const callers = await pair();
    const other = `svc_pat_${'x'.repeat(40)}`;
    const alone = await overSocket(s.inProcess, OBJECT, { 'x-request-id': 'repeated-authorization', authorization: [`Bearer ${callers[0].key}`, `Bearer ${other}`] });
    await s.sync();
    const envoy = await s.viaEnvoy({ url: OBJECT, headers: { 'x-request-id': 'repeated-authorization', authorization: `Bearer ${callers[1].key},Bearer ${other}` } });
    expect(alone.status).toBe(200);
    expect(envoy).toEqual(alone);
    await sameCharge(callers, { requests: 1, credits: 1 });
  });

  it('Warp delivery, served by the streams role behind Envoy: the same answers, the key limited once', async () => {
    const callers = await pair({ rateLimit: { perKeyRps: 1 } });
    // An SSE stream: the refusal comes as its first event (spec: Warp delivery).
    const missing = await both({ url: WARP }, callers);
    expect(missing.status).toBe(200);
    expect(missing.body).toBe('event: error\ndata: {"code":"STREAM_NOT_FOUND","message":"Stream not found"}\n\n');
    const capped = await both({ url: WARP }, callers);
    expect(capped.status).toBe(429);
    expect(capped.body).toEqual({ error: 'Rate limit exceeded', code: 'RATE_LIMIT_EXCEEDED', requestId: capped.headers['x-request-id'] });
    await sameCharge(callers, { requests: 2, credits: 1 });
  });

  it('public and unknown routes: the same answers without identity', async () => {
    expect((await both({ url: '/mainnet/v1/account' })).status).toBe(401);
    const legacy = await both({ url: '/v1/objects/0x1?x=1' });
    expect(legacy.status).toBe(308);
    const missing = await both({ url: '/mainnet/v1/no-such-route' });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: 'NOT_FOUND' });
  });
});
