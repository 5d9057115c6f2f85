import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyVia } from '../support/management-calls.js';
import { startJsonRpcE2E, type JsonRpcE2E } from '../support/jsonrpc-e2e.js';

/** The JSON-RPC 2.0 envelope, errors, batches and notifications, over real HTTP on simnet. */
describe('POST /v1/jsonrpc: protocol errors', () => {
  let e: JsonRpcE2E;
  let alice: string;
  beforeAll(async () => {
    e = await startJsonRpcE2E();
    alice = e.address('alice');
  }, 60_000);
  afterAll(async () => e.stop());

  it('malformed JSON is -32700 with id null, HTTP 200', async () => {
    const response = await e.send('{"jsonrpc":"2.0","id":1,"method":', { raw: true });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
  });

  it('an empty body is -32700', async () => {
    const response = await e.send('', { raw: true });
    expect({ status: response.status, body: response.body }).toEqual({ status: 200, body: { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } } });
  });

  it.each([
    [{ id: 1, method: 'suix_getReferenceGasPrice' }, 1, '`jsonrpc` must be "2.0"'],
    [{ jsonrpc: '1.0', id: 'a', method: 'suix_getReferenceGasPrice' }, 'a', '`jsonrpc` must be "2.0"'],
    [{ jsonrpc: '2.0', id: 2, method: 7 }, 2, '`method` must be a string'],
    [{ jsonrpc: '2.0', id: 3, method: 'suix_getBalance', params: 'x' }, 3, '`params` must be an array or an object'],
    [{ jsonrpc: '2.0', id: { no: 1 }, method: 'suix_getReferenceGasPrice' }, null, '`id` must be a string, a number or null'],
    [42, null, 'a request must be an object'],
  ])('%j is -32600', async (payload, id, reason) => {
    const response = await e.send(payload);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ jsonrpc: '2.0', id, error: { code: -32600, message: `Invalid Request: ${reason}` } });
  });

  it('an unknown method is -32601 with the id echoed', async () => {
    const response = await e.send({ jsonrpc: '2.0', id: 'x-1', method: 'sui_noSuchMethod', params: [] });
    expect(response.body).toEqual({ jsonrpc: '2.0', id: 'x-1', error: { code: -32601, message: 'Method not found: sui_noSuchMethod' } });
  });

  it.each([
    ['a missing required param', 'suix_getBalance', [], "missing required param 'owner'"],
    ['too many positional params', 'suix_getReferenceGasPrice', [1], 'suix_getReferenceGasPrice takes at most 0 params, got 1'],
    ['an unknown named param', 'suix_getBalance', { owner: '0x1', coin: 'x' }, "unknown param 'coin'"],
    ['a param failing its schema', 'suix_getBalance', [42], "param 'owner' must be string"],
    ['a limit over uint', 'suix_getCoins', ['0x1', null, null, -1], "param 'limit' must be >= 0"],
    ['null for a required param', 'suix_getBalance', [null], "param 'owner' must be string"],
  ])('%s is -32602 with the reason', async (_what, method, params, reason) => {
    const response = await e.send({ jsonrpc: '2.0', id: 9, method, params });
    expect(response.body).toEqual({ jsonrpc: '2.0', id: 9, error: { code: -32602, message: `Invalid params: ${reason}` } });
  });

  it('`params: null` or no params at all is a call without params', async () => {
    const none = await e.send({ jsonrpc: '2.0', id: 1, method: 'sui_getChainIdentifier' });
    const nulled = await e.send({ jsonrpc: '2.0', id: 2, method: 'sui_getChainIdentifier', params: null });
    expect(nulled.body).toEqual({ jsonrpc: '2.0', id: 2, result: none.body.result });
  });

  it('named params work like positional ones', async () => {
    const positional = await e.call('suix_getBalance', [alice, '0x2::sui::SUI']);
    const named = await e.call('suix_getBalance', { owner: alice, coin_type: '0x2::sui::SUI' });
    expect(named).toEqual(positional);
    expect(named.totalBalance).toMatch(/^[1-9][0-9]*$/);
  });

  it('a batch answers each call in order with its own id, errors included', async () => {
    const response = await e.send([
      { jsonrpc: '2.0', id: 1, method: 'suix_getReferenceGasPrice' },
      { jsonrpc: '2.0', id: 'two', method: 'sui_nope' },
      { jsonrpc: '2.0', id: 3, method: 'suix_getBalance', params: [] },
      { jsonrpc: '2.0', method: 'suix_getReferenceGasPrice' },
      { jsonrpc: '2.0', id: null, method: 'sui_getChainIdentifier' },
    ]);
    expect(response.status).toBe(200);
    expect(response.body).toEqual([
      { jsonrpc: '2.0', id: 1, result: expect.stringMatching(/^[0-9]+$/) },
      { jsonrpc: '2.0', id: 'two', error: { code: -32601, message: 'Method not found: sui_nope' } },
      { jsonrpc: '2.0', id: 3, error: { code: -32602, message: "Invalid params: missing required param 'owner'" } },
      { jsonrpc: '2.0', id: null, result: expect.stringMatching(/^[0-9a-f]{8}$/) },
    ]);
  });

  it('an empty batch is one -32600', async () => {
    const response = await e.send([]);
    expect(response.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: empty batch' } });
  });

  it('a batch over 50 calls is one -32600 and none of its calls run', async () => {
    const calls = Array.from({ length: 51 }, (_, id) => ({ jsonrpc: '2.0', id, method: 'suix_getReferenceGasPrice' }));
    const response = await e.send(calls);
    expect(response.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: a batch holds at most 50 calls, got 51' } });
  });

  it('a batch of invalid entries answers -32600 for each', async () => {
    const response = await e.send([1, 'x']);
    expect(response.body).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: a request must be an object' } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: a request must be an object' } },
    ]);
  });

  it('a notification, and a batch of only notifications, answer 204 with no body', async () => {
    const single = await e.send({ jsonrpc: '2.0', method: 'suix_getReferenceGasPrice' });
    expect({ status: single.status, body: single.body }).toEqual({ status: 204, body: undefined });
    const batch = await e.send([{ jsonrpc: '2.0', method: 'suix_getReferenceGasPrice' }, { jsonrpc: '2.0', method: 'sui_nope' }]);
    expect({ status: batch.status, body: batch.body }).toEqual({ status: 204, body: undefined });
  });

  it('a cursor that is not ours, was made for another method or owner, or is a node\'s numeric one, is -32602 INVALID_CURSOR', async () => {
    const page = await e.call('suix_getCoins', [alice, null, null, 1]);
    expect(page.hasNextPage).toBe(true);
    const next = await e.call('suix_getCoins', [alice, null, page.nextCursor, 1]);
    expect(next.data[0].coinObjectId).not.toBe(page.data[0].coinObjectId);
    const cases = [
      ['suix_getCoins', [alice, null, 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=', 1]],
      ['suix_getCoins', [alice, null, `${page.nextCursor}x`, 1]],
      ['suix_getAllCoins', [alice, page.nextCursor, 1]],
      ['suix_getCoins', [e.address('bob'), null, page.nextCursor, 1]],
      // A node's cursor here is a checkpoint number: never a silent restart from the first page.
      ['sui_getCheckpoints', [1000, 2, false]],
    ] as const;
    for (const [method, params] of cases) {
      const response = await e.send({ jsonrpc: '2.0', id: 1, method, params });
      expect(response.body.error).toEqual({ code: -32602, message: expect.stringMatching(/^Invalid params: /), data: { code: 'INVALID_CURSOR' } });
    }
  });

  it('a batch of N calls costs N credits', async () => {
    const before = await e.send({ jsonrpc: '2.0', id: 1, method: 'suix_getReferenceGasPrice' });
    const batch = await e.send([1, 2, 3].map((id) => ({ jsonrpc: '2.0', id, method: 'suix_getReferenceGasPrice' })));
    const after = await e.send({ jsonrpc: '2.0', id: 1, method: 'suix_getReferenceGasPrice' });
    const remaining = (response: { headers: Headers }) => Number(response.headers.get('x-svc-credit-remaining'));
    expect(remaining(before) - remaining(batch)).toBe(3);
    expect(remaining(batch) - remaining(after)).toBe(1);
  });
});

describe('POST /v1/jsonrpc: authentication keeps the spec\'s HTTP statuses', () => {
  let e: JsonRpcE2E;
  const call = { jsonrpc: '2.0', id: 1, method: 'suix_getReferenceGasPrice' };
  beforeAll(async () => { e = await startJsonRpcE2E(); }, 60_000);
  afterAll(async () => e.stop());

  it('no key is 401 with the REST error body, not a JSON-RPC one', async () => {
    const response = await e.send(call, { headers: {} });
    expect(response.status).toBe(401);
    expect(response.body).toEqual(expect.objectContaining({ error: 'Missing API key' }));
    expect(response.body.jsonrpc).toBeUndefined();
  });

  it('a key lacking the data scope is 403 INSUFFICIENT_SCOPE', async () => {
    const key = await createKeyVia(e.gateway, { scopes: ['streams'] });
    const response = await e.send(call, { headers: { 'x-api-key': key.apiKey } });
    expect({ status: response.status, code: response.body.code }).toEqual({ status: 403, code: 'INSUFFICIENT_SCOPE' });
  });

  it('a testnet key on the mainnet endpoint is 403 NETWORK_MISMATCH', async () => {
    const key = await createKeyVia(e.gateway, { projectId: e.gateway.projects.testnet, scopes: ['data'] });
    const response = await e.send(call, { headers: { 'x-api-key': key.apiKey } });
    expect({ status: response.status, code: response.body.code }).toEqual({ status: 403, code: 'NETWORK_MISMATCH' });
  });

  it('the key in the api_key query parameter works (compatibility), and a Bearer key too', async () => {
    const query = await e.send(call, { headers: {}, query: `?api_key=${e.gateway.adminKey}` });
    expect({ status: query.status, result: query.body.result }).toEqual({ status: 200, result: expect.stringMatching(/^[0-9]+$/) });
    const bearer = await e.send(call, { headers: { authorization: `Bearer ${e.gateway.adminKey}` } });
    expect(bearer.body.result).toBe(query.body.result);
  });

  it('a body that is not JSON under a bad key is still 401 (auth runs before the body is read)', async () => {
    const response = await e.send('{', { raw: true, headers: { 'x-api-key': 'svc_pat_nope' } });
    expect(response.status).toBe(401);
  });
});
