import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/support/test-app.js';
import { call, createKeyVia } from '../../test/support/management-calls.js';

describe('GET /v1/catalog/*: errors', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { SUIGW_CATALOG_SIMNET_NETWORKS: 'mainnet' } });
  });
  afterAll(async () => t.close());

  const get = async (path: string, key: string | undefined = t.adminKey) => {
    const response = await call(t, 'GET', path, { key });
    return { status: response.status, code: response.body.code };
  };

  it('an unknown protocol, or one not cataloged on the key\'s network, is 404 PROTOCOL_NOT_FOUND', async () => {
    expect(await get('/v1/catalog/events?protocol=nope')).toEqual({ status: 404, code: 'PROTOCOL_NOT_FOUND' });
    const testnetKey = await createKeyVia(t, { projectId: t.projects.testnet, scopes: ['data'] });
    const response = await call(t, 'GET', '/v1/catalog/events?protocol=simnet-dex', { key: testnetKey.apiKey, network: 'testnet' });
    expect({ status: response.status, code: response.body.code }).toEqual({ status: 404, code: 'PROTOCOL_NOT_FOUND' });
  });

  it.each([
    ['/v1/catalog/events?package=0xzz'],
    ['/v1/catalog/events?package=12'],
    ['/v1/catalog/events?protocol=Not_An_Id'],
    ['/v1/catalog/events?limit=0'],
    ['/v1/catalog/protocols?limit=101'],
    ['/v1/catalog/protocols?limit=1e1'],
  ])('%s is 400 VALIDATION_FAILED', async (path) => {
    expect(await get(path)).toEqual({ status: 400, code: 'VALIDATION_FAILED' });
  });

  it('a forged cursor, or one of another list or filter, is 400 INVALID_CURSOR', async () => {
    expect(await get('/v1/catalog/events?cursor=abc.def')).toEqual({ status: 400, code: 'INVALID_CURSOR' });
    const page = await call(t, 'GET', '/v1/catalog/events?limit=1', { key: t.adminKey });
    const cursor = (page.body['pagination'] as { cursor: string }).cursor;
    expect(await get(`/v1/catalog/events?limit=1&cursor=${cursor}`)).toEqual({ status: 200, code: undefined });
    expect(await get(`/v1/catalog/events?limit=1&protocol=sui-kiosk&cursor=${cursor}`)).toEqual({ status: 400, code: 'INVALID_CURSOR' });
    expect(await get(`/v1/catalog/protocols?limit=1&cursor=${cursor}`)).toEqual({ status: 400, code: 'INVALID_CURSOR' });
  });

  it.each([
    ['an empty cursor on events', '/v1/catalog/events?cursor='],
    ['an empty cursor on protocols', '/v1/catalog/protocols?cursor='],
    ['a cursor over 2,048 characters', `/v1/catalog/protocols?cursor=${'a'.repeat(2_049)}`],
  ])('%s is 400 INVALID_CURSOR, as on the REST lists', async (_what, path) => {
    expect(await get(path)).toEqual({ status: 400, code: 'INVALID_CURSOR' });
  });

  it('needs a key with the data scope', async () => {
    expect((await call(t, 'GET', '/v1/catalog/protocols')).status).toBe(401);
    const streamsOnly = await createKeyVia(t, { scopes: ['streams'] });
    expect(await get('/v1/catalog/events', streamsOnly.apiKey)).toEqual({ status: 403, code: 'INSUFFICIENT_SCOPE' });
  });
});
