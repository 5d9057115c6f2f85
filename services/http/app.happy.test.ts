import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../core/index.js';
import { openDatabase } from '../db/index.js';
import { buildGatewayApp } from '../cli/gateway-app.js';
import { createTestApp, type TestApp } from '../../test/support/test-app.js';

describe('the HTTP app: health, legacy redirects, unknown routes, body rules', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  it('GET /health is public: 200 {status, database, timestamp, stats}', async () => {
    for (const url of ['/health', '/mainnet/v1/health', '/testnet/v1/health']) {
      const response = await t.app.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(body).toEqual({
        status: 'ok',
        database: 'ok',
        timestamp: new Date(t.clock.now()).toISOString(),
        stats: { success: expect.any(Number), error: expect.any(Number), total: expect.any(Number) },
      });
      expect(body.stats.total).toBe(body.stats.success + body.stats.error);
    }
  });

  it('GET /health is 503 {status:error, database:error, error} when the database is closed; GET /health/live stays 200', async () => {
    const database = await openDatabase({ url: t.db.url, poolSize: 1 });
    const app = await buildGatewayApp({ config: t.config, database, clock: t.clock, logger: createLogger('silent') });
    try {
      await app.ready();
      expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
      await database.close();
      const response = await app.inject({ method: 'GET', url: '/health' });
      expect(response.statusCode).toBe(503);
      expect(response.json()).toEqual({ status: 'error', database: 'error', error: expect.any(String) });
      // Liveness checks no dependency: a database outage takes pods out of the Service
      // (readiness, /health), it does not restart them.
      const live = await app.inject({ method: 'GET', url: '/health/live' });
      expect(live.statusCode).toBe(200);
      expect(live.json()).toEqual({ status: 'ok' });
    } finally {
      await app.close();
    }
  });

  it.each(['GET', 'POST', 'DELETE'])('legacy %s /v1/... is 308 to /mainnet/v1/... keeping path and query', async (method) => {
    const response = await t.app.inject({ method: method as 'GET', url: '/v1/keys/key_1?a=x&b=%20y' });
    expect(response.statusCode).toBe(308);
    expect(response.headers.location).toBe('/mainnet/v1/keys/key_1?a=x&b=%20y');
  });

  it.each(['api_key', 'API_KEY', 'api%5Fkey', 'Api%5fKey', 'api%5F%6Bey'])(
    'the legacy 308 never copies the key into Location (parameter spelled %s)',
    async (name) => {
      const secret = `svc_pat_${'7'.repeat(44)}`;
      const response = await t.app.inject({ method: 'GET', url: `/v1/keys?a=1&${name}=${secret}&b=%20y` });
      expect(response.statusCode).toBe(308);
      expect(response.headers.location).toBe('/mainnet/v1/keys?a=1&b=%20y');
      const alone = await t.app.inject({ method: 'GET', url: `/v1/auth/me?${name}=${secret}` });
      expect(alone.headers.location).toBe('/mainnet/v1/auth/me');
    },
  );

  it('with network hosts configured, the host picks the network and legacy hosts go to the mainnet host', async () => {
    const hosted = await createTestApp({ env: { SUIGW_MAINNET_HOST: 'mainnet.example.com', SUIGW_TESTNET_HOST: 'testnet.example.com' } });
    try {
      const on = (host: string, url: string) => hosted.app.inject({ method: 'GET', url, headers: { host, 'x-api-key': hosted.adminKey } });
      expect((await on('mainnet.example.com', '/v1/auth/me')).statusCode).toBe(200);
      expect((await on('MAINNET.example.com:443', '/v1/auth/me')).statusCode).toBe(200);
      expect((await on('testnet.example.com', '/v1/auth/me')).json().code).toBe('NETWORK_MISMATCH');
      const legacy = await on('legacy.example.com', '/v1/auth/me?a=1&b=2');
      expect(legacy.statusCode).toBe(308);
      expect(legacy.headers.location).toBe('https://mainnet.example.com/v1/auth/me?a=1&b=2');
    } finally {
      await hosted.close();
    }
  });

  it('the redirect target answers like the original request would', async () => {
    const redirect = await t.app.inject({ method: 'GET', url: '/v1/auth/me', headers: { 'x-api-key': t.adminKey } });
    const followed = await t.app.inject({ method: 'GET', url: redirect.headers.location as string, headers: { 'x-api-key': t.adminKey } });
    expect(followed.statusCode).toBe(200);
  });

  it.each(['/nope', '/mainnet/v1/nope', '/devnet/v1/auth/me', '/mainnet/v2/keys'])('unknown route %s is 404 NOT_FOUND', async (url) => {
    const response = await t.app.inject({ method: 'GET', url, headers: { 'x-api-key': t.adminKey } });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ error: 'Not found', code: 'NOT_FOUND' });
  });

  describe('bodies', () => {
    const post = (payload: string, contentType?: string) =>
      t.app.inject({
        method: 'POST',
        url: '/mainnet/v1/keys',
        headers: { 'x-api-key': t.adminKey, ...(contentType ? { 'content-type': contentType } : {}) },
        payload,
      });

    it.each(['{"name": "x",', '{name: x}', "{'a':1}", 'undefined', '{"a":1}}'])('unparseable JSON %j is 400 INVALID_BODY', async (payload) => {
      const response = await post(payload, 'application/json');
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ code: 'INVALID_BODY', error: 'Invalid body' });
    });

    it.each(['{"__proto__":{"x":1}}', '{"a":{"constructor":{"prototype":{"x":1}}}}'])('valid JSON reaching a prototype (%s) is 400 INVALID_BODY saying so', async (payload) => {
      const response = await post(payload, 'application/json');
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ code: 'INVALID_BODY', message: 'The body has a `__proto__` or `constructor.prototype` key, which is refused.' });
    });

    it('a compressed JSON body is 415 UNSUPPORTED_MEDIA_TYPE naming the coding, not invalid UTF-8', async () => {
      const response = await t.app.inject({
        method: 'POST', url: '/mainnet/v1/keys', headers: { 'x-api-key': t.adminKey, 'content-type': 'application/json', 'content-encoding': 'gzip' },
        payload: gzipSync('{"name":"x"}'),
      });
      expect(response.statusCode).toBe(415);
      expect(response.json()).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Content-Encoding gzip is not supported: send the JSON body uncompressed.' });
    });

    it('an empty JSON body is 400 INVALID_BODY', async () => {
      const response = await post('', 'application/json');
      expect(response.statusCode).toBe(400);
      expect(response.json().code).toBe('INVALID_BODY');
    });

    it.each(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml'])(
      'a %s body is 415 UNSUPPORTED_MEDIA_TYPE',
      async (contentType) => {
        const response = await post('name=x', contentType);
        expect(response.statusCode).toBe(415);
        expect(response.json()).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', error: 'Unsupported media type' });
      },
    );

    it('application/json with a charset is accepted', async () => {
      const response = await post(JSON.stringify({ name: 'charset', projectId: t.projects.mainnet }), 'application/json; charset=utf-8');
      expect(response.statusCode).toBe(201);
    });

    it('a body over the limit is 413 PAYLOAD_TOO_LARGE, not 500', async () => {
      const response = await post(JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }), 'application/json');
      expect(response.statusCode).toBe(413);
      expect(response.json().code).toBe('PAYLOAD_TOO_LARGE');
    });
  });

  it('every response carries x-request-id; a sane given id is kept', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/health', headers: { 'x-request-id': 'trace-123' } });
    expect(response.headers['x-request-id']).toBe('trace-123');
    const hostile = await t.app.inject({ method: 'GET', url: '/nope', headers: { 'x-request-id': 'a b\u202e' } });
    expect(hostile.headers['x-request-id']).not.toBe('a b\u202e');
    expect(hostile.json().requestId).toBe(hostile.headers['x-request-id']);
  });
});
