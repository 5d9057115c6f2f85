import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_BATCH_SIZE } from '../../services/jsonrpc/dispatcher.js';
import { startJsonRpcE2E, type JsonRpcE2E } from '../support/jsonrpc-e2e.js';

/** A batch at the documented maximum runs and is charged per call; one more is refused whole, charged 1. */
describe('POST /v1/jsonrpc: batches at the limit', () => {
  let e: JsonRpcE2E;
  beforeAll(async () => {
    e = await startJsonRpcE2E();
  }, 60_000);
  afterAll(async () => e.stop());

  const calls = (count: number) => Array.from({ length: count }, (_, id) => ({ jsonrpc: '2.0', id, method: 'sui_getChainIdentifier' }));
  const remaining = (headers: Headers) => Number(headers.get('x-svc-credit-remaining'));

  it('50 calls: 50 answers, 50 credits; 51: -32600, 1 credit', async () => {
    expect(DEFAULT_MAX_BATCH_SIZE).toBe(50);
    const before = remaining((await e.send({ jsonrpc: '2.0', id: 0, method: 'sui_getChainIdentifier' })).headers);
    const full = await e.send(calls(50));
    expect(full.status).toBe(200);
    expect(full.body).toHaveLength(50);
    expect(remaining(full.headers)).toBe(before - 50);
    const over = await e.send(calls(51));
    expect(over.status).toBe(200);
    expect(over.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: a batch holds at most 50 calls, got 51' } });
    expect(remaining(over.headers)).toBe(before - 51);
  });
});
