import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../support/management-calls.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

/**
 * Text PostgreSQL cannot store (NUL, lone surrogates) in any JSON body or URL is 400
 * VALIDATION_FAILED naming where it is, before a route stores or looks it up: streams, webhooks,
 * zkLogin audiences and usage answered 500 from the database. Bodies are sent as raw JSON text, escapes as a client writes them.
 */
describe('bodies with text PostgreSQL cannot store', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ tier: 'enterprise' });
  });
  afterAll(async () => t.close());

  const post = async (path: string, json: string) => {
    const response = await t.app.inject({ method: 'POST', url: `/mainnet${path}`, headers: { 'x-api-key': t.adminKey, 'content-type': 'application/json' }, payload: json });
    return { status: response.statusCode, body: response.json() };
  };
  const refused = (at: string) => ({
    error: 'Validation failed', code: 'VALIDATION_FAILED', requestId: expect.any(String),
    message: `${at}: text must not contain NUL (U+0000) or lone surrogates`, issues: [`${at}: text must not contain NUL (U+0000) or lone surrogates`],
  });

  it.each([
    ['a stream name with NUL', '/v1/streams', '{"name":"a\\u0000b","type":"coin","filters":{"coinTypes":["0x2::sui::SUI"]}}', 'body.name'],
    ['a stream field filter with NUL', '/v1/streams', '{"name":"x","type":"event","filters":{"eventTypes":["0x2::coin::X"],"fields":{"a":"b\\u0000"}}}', 'body.filters.fields.a'],
    ['a field name with a lone surrogate', '/v1/streams', '{"name":"x","type":"event","filters":{"eventTypes":["0x2::coin::X"],"fields":{"a\\ud800":"b"}}}', 'body.filters.fields'],
    ['a webhook filter with NUL', '/v1/webhooks', '{"url":"https://example.com/h","type":"event","filters":{"eventTypes":["0x2::coin::X"],"fields":{"a":"\\u0000"}}}', 'body.filters.fields.a'],
    ['a zkLogin audience with NUL', '/v1/zklogin/audiences', '{"audience":"a\\u0000b"}', 'body.audience'],
    ['a zkLogin audience with a lone low surrogate', '/v1/zklogin/audiences', '{"audience":"\\udc00"}', 'body.audience'],
  ])('%s is 400 VALIDATION_FAILED, and nothing is stored', async (_what, path, json, at) => {
    const listed = async () => (await call(t, 'GET', path, { key: t.adminKey })).body.data;
    const before = await listed();
    expect(await post(path, json)).toEqual({ status: 400, body: refused(at) });
    expect(await listed()).toEqual(before);
  });

  it.each([
    ['GET', '/v1/streams/a%00b'], ['DELETE', '/v1/streams/a%00b'], ['GET', '/v1/webhooks/a%00b'], ['GET', '/v1/webhooks/a%00b/deliveries'],
    ['DELETE', '/v1/zklogin/audiences/a%00b'], ['GET', '/v1/usage?keyId=a%00b'],
  ] as const)('%s %s: a NUL in the URL is 400 VALIDATION_FAILED, not a database error', async (method, path) => {
    const response = await t.app.inject({ method, url: `/mainnet${path}`, headers: { 'x-api-key': t.adminKey } });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      error: 'Validation failed', code: 'VALIDATION_FAILED', message: 'url: must not contain NUL (%00)', issues: ['url: must not contain NUL (%00)'], requestId: expect.any(String),
    });
  });

  it('a pair of surrogates (one character outside the BMP) is text like any other', async () => {
    const created = await post('/v1/streams', '{"name":"rocket \\ud83d\\ude80","type":"coin","filters":{"coinTypes":["0x2::sui::SUI"]}}');
    expect(created.status).toBe(201);
    expect(created.body.data.name).toBe('rocket 🚀');
  });
});
