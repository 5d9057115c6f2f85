import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../core/index.js';
import { createTestApp, type TestApp } from '../../test/support/test-app.js';

/**
 * At the shipped log level, no spelling of a key in a logged request ever reaches a log line.
 * Requests are logged only when they fail (5xx), are slow or are sampled: every request is
 * sampled here, so every one is logged.
 */
describe('request logging never carries a key', () => {
  let t: TestApp;
  const lines: string[] = [];
  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    t = await createTestApp({ env: { SUIGW_LOG_SAMPLE_RATE: '1' }, extra: { logger: createLogger('info', {}, sink) } });
  });
  afterAll(async () => t.close());

  it.each([
    ['api%5Fkey on a network route', '/mainnet/v1/auth/me?api%5Fkey=', false, 401],
    ['API_KEY on a network route', '/mainnet/v1/auth/me?a=1&API_KEY=', false, 401],
    ['api%5fKey on the legacy redirect', '/v1/keys?api%5fKey=', false, 308],
    ['api_key with the key in the headers too', '/mainnet/v1/keys?api_key=', true, 401],
    // Misspelt parameters and path segments are not the api_key parameter, but the key is as live.
    ['apikey (misspelt) on a JSON-RPC route', '/mainnet/v1/jsonrpc?apikey=', false, 401],
    ['key= on a REST route, after another parameter', '/mainnet/v1/chain?x=1&key=', false, 401],
    ['api_key[] on a JSON-RPC route', '/mainnet/v1/jsonrpc?api_key[]=', false, 401],
    ['a key in the path', '/mainnet/v1/accounts/', true, 400],
  ])('%s', async (_what, prefix, withHeader, status) => {
    const before = lines.length;
    const response = await t.app.inject({
      method: 'GET',
      url: `${prefix}${t.adminKey}`,
      headers: withHeader ? { 'x-api-key': t.adminKey, authorization: `Bearer ${t.adminKey}` } : {},
    });
    expect(response.statusCode).toBe(status);
    const logged = lines.slice(before).join('');
    expect(logged).toContain('request completed');
    expect(logged).toContain('[redacted]');
    expect(logged).not.toContain(t.adminKey);
    expect(logged).not.toContain(t.adminKey.slice('svc_pat_'.length));
  });

  it('a key-shaped value is logged as svc_pat_[redacted], the rest of the URL as sent', async () => {
    const before = lines.length;
    await t.app.inject({ method: 'GET', url: `/mainnet/v1/chain?apikey=${t.adminKey}&limit=5` });
    const line = JSON.parse(lines.slice(before).find((l) => l.includes('request completed'))!) as { req: { url: string } };
    expect(line.req.url).toBe('/mainnet/v1/chain?apikey=svc_pat_[redacted]&limit=5');
  });
});
