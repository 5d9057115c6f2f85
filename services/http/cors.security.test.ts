import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/support/test-app.js';

const ORIGIN = 'https://app.example.com';
const EXPOSED =
  'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-Svc-Credit-Remaining, X-Svc-Credit-Replenish-Date, X-Request-Id, Retry-After';

describe('CORS: data routes answer browsers, management routes do not, the per-key origin check stays', () => {
  let t: TestApp;
  let restrictedKey: string;
  beforeAll(async () => {
    t = await createTestApp();
    const created = await t.app.inject({
      method: 'POST',
      url: '/mainnet/v1/keys',
      headers: { 'x-api-key': t.adminKey },
      payload: { name: 'web', projectId: t.projects.mainnet, scopes: ['data'], allowedOrigins: [ORIGIN] },
    });
    expect(created.statusCode).toBe(201);
    restrictedKey = (created.json() as { data: { apiKey: string } }).data.apiKey;
  });
  afterAll(async () => t.close());

  const preflight = (url: string, method = 'GET', origin = ORIGIN) =>
    t.app.inject({
      method: 'OPTIONS',
      url,
      headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'x-api-key' },
    });

  it('a preflight of a data route needs no key: 204 with methods, allowed headers and max age, no credentials', async () => {
    for (const origin of [ORIGIN, 'http://elsewhere.test:3000']) {
      const response = await preflight('/mainnet/v1/accounts/0xabc/balance', 'GET', origin);
      expect(response.statusCode).toBe(204);
      expect(response.body).toBe('');
      expect(response.headers['access-control-allow-origin']).toBe(origin);
      expect(response.headers['access-control-allow-methods']).toBe('GET, HEAD');
      expect(response.headers['access-control-allow-headers']).toBe(
        'x-api-key, authorization, content-type, x-sui-client-protocol-version, client-sdk-type, client-sdk-version, client-request-method, client-target-api-version',
      );
      expect(response.headers['access-control-max-age']).toBe('600');
      expect(response.headers['access-control-allow-credentials']).toBeUndefined();
      expect(response.headers['vary']).toContain('Origin');
    }
    const post = await preflight('/testnet/v1/transactions/batch', 'POST');
    expect(post.statusCode).toBe(204);
    // `/transactions/:digest` is a GET at the same path.
    expect(post.headers['access-control-allow-methods']).toBe('GET, HEAD, POST');
  });

  it('a preflight of a management route gets no CORS headers (a manage key must not live in a browser)', async () => {
    for (const [url, method] of [['/mainnet/v1/keys', 'POST'], ['/mainnet/v1/projects', 'GET'], ['/mainnet/v1/account', 'GET'], ['/mainnet/v1/auth/me', 'GET']] as const) {
      const response = await preflight(url, method);
      expect(response.statusCode).toBe(204);
      expect(response.headers['access-control-allow-origin']).toBeUndefined();
      expect(response.headers['access-control-allow-methods']).toBeUndefined();
    }
  });

  it('a preflight of an unknown path is 404 NOT_FOUND', async () => {
    const response = await preflight('/mainnet/v1/nothing');
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('answers and refusals of data routes carry the reflected origin and the exposed headers, never credentials', async () => {
    const cases = [
      { headers: { origin: ORIGIN }, status: 401, code: undefined },
      { headers: { origin: 'https://evil.test', 'x-api-key': restrictedKey }, status: 403, code: 'ORIGIN_NOT_ALLOWED' },
      { headers: { origin: ORIGIN, 'x-api-key': restrictedKey }, status: 400, code: 'INVALID_ADDRESS' },
    ];
    for (const { headers, status, code } of cases) {
      const response = await t.app.inject({ method: 'GET', url: '/mainnet/v1/accounts/0xabc/balance', headers });
      expect(response.statusCode).toBe(status);
      expect((response.json() as { code?: string }).code).toBe(code);
      expect(response.headers['access-control-allow-origin']).toBe(headers.origin);
      expect(response.headers['access-control-expose-headers']).toBe(EXPOSED);
      expect(response.headers['access-control-allow-credentials']).toBeUndefined();
    }
  });

  it('a 429 of the limit stage carries the CORS headers, so a page can read it and its Retry-After', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/mainnet/v1/keys',
      headers: { 'x-api-key': t.adminKey },
      payload: { name: 'capped web', projectId: t.projects.mainnet, scopes: ['data'], allowedOrigins: [ORIGIN], rateLimit: { perKeyRps: 1 } },
    });
    expect(created.statusCode).toBe(201);
    const cappedKey = (created.json() as { data: { apiKey: string } }).data.apiKey;
    const ask = () => t.app.inject({ method: 'GET', url: '/mainnet/v1/accounts/0xabc/balance', headers: { origin: ORIGIN, 'x-api-key': cappedKey } });
    expect((await ask()).statusCode).toBe(400);
    const refused = await ask();
    expect([refused.statusCode, (refused.json() as { code?: string }).code]).toEqual([429, 'RATE_LIMIT_EXCEEDED']);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(refused.headers['access-control-expose-headers']).toBe(EXPOSED);
    expect(refused.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('the origin check is unchanged: a restricted key without Origin is 403 ORIGIN_NOT_ALLOWED, no CORS headers', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/mainnet/v1/accounts/0xabc/balance', headers: { 'x-api-key': restrictedKey } });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({ code: 'ORIGIN_NOT_ALLOWED' });
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('management answers carry no CORS headers, even with an Origin', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/mainnet/v1/keys', headers: { origin: ORIGIN, 'x-api-key': t.adminKey } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
    expect(response.headers['access-control-expose-headers']).toBeUndefined();
  });
});
