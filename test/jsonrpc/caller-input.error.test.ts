import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJsonRpcE2E, type JsonRpcE2E } from '../support/jsonrpc-e2e.js';

/**
 * Caller input that only a method's own parsing can refuse (a number deep inside the params,
 * past the OpenRPC schema's `string` check) is the caller's error: -32602 naming the param,
 * charged 1 credit like every answered call, never -32603 or an upstream failure.
 */
describe('POST /v1/jsonrpc: malformed numbers deep in the params', () => {
  let e: JsonRpcE2E;
  beforeAll(async () => {
    e = await startJsonRpcE2E();
  }, 60_000);
  afterAll(async () => e.stop());

  const remaining = (headers: Headers) => Number(headers.get('x-svc-credit-remaining'));

  it.each([
    ['sui_tryGetPastObject', ['0x5', 'x'], 'version is not a u64'],
    ['suix_getCommitteeInfo', ['x'], 'epoch is not a u64'],
    ['sui_getCheckpoint', ['99999999999999999999999'], 'id is not a u64'],
    ['suix_queryTransactionBlocks', [{ filter: { Checkpoint: '1e3' } }], 'Checkpoint is not a u64'],
    ['suix_getOwnedObjects', ['0x1', { filter: { Version: '-1' } }], 'Version is not a u64'],
  ])('%s %j is -32602 (%s), charged 1', async (method, params, reason) => {
    const before = remaining((await e.send({ jsonrpc: '2.0', id: 0, method: 'sui_getChainIdentifier' })).headers);
    const response = await e.send({ jsonrpc: '2.0', id: 7, method, params });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32602, message: `Invalid params: ${reason}` } });
    expect(remaining(response.headers)).toBe(before - 1);
  });
});
