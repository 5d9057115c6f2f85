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
  /** -32602 with exactly `reason`, HTTP 200, charged 1 credit. */
  const expectRefused = async (method: string, params: unknown, reason: string) => {
    const before = remaining((await e.send({ jsonrpc: '2.0', id: 0, method: 'sui_getChainIdentifier' })).headers);
    const response = await e.send({ jsonrpc: '2.0', id: 7, method, params });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32602, message: `Invalid params: ${reason}` } });
    expect(remaining(response.headers)).toBe(before - 1);
  };

  it.each([
    ['sui_tryGetPastObject', ['0x5', 'x'], 'version is not a u64'],
    ['suix_getCommitteeInfo', ['x'], 'epoch is not a u64'],
    ['sui_getCheckpoint', ['99999999999999999999999'], 'id is not a u64'],
    ['suix_queryTransactionBlocks', [{ filter: { Checkpoint: '1e3' } }], 'Checkpoint is not a u64'],
    ['suix_getOwnedObjects', ['0x1', { filter: { Version: '-1' } }], 'Version is not a u64'],
  ])('%s %j is -32602 (%s), charged 1', async (method, params, reason) => {
    await expectRefused(method, params, reason);
  });

  // REST refuses NUL in any JSON body with 400 VALIDATION_FAILED (the app's JSON parser); this
  // route parses its own bytes (-32700 for what is not JSON), so a coin type is checked as a node
  // checks it: parse_sui_struct_tag, -32602 with its message. It was sent upstream and echoed.
  it.each([
    ['suix_getBalance', ['0x1', '0x2::sui::SUI\u0000'], 'Invalid struct type: 0x2::sui::SUI\\u0000. Got error: unrecognized token: \\u0000'],
    ['suix_getCoins', ['0x1', '0x2::sui::SUI>'], 'Invalid struct type: 0x2::sui::SUI>. Got error: Expected end of token stream. Got: >'],
    ['suix_getCoinMetadata', ['0x2::invalid::struct::tag'], 'Invalid struct type: 0x2::invalid::struct::tag. Got error: Expected end of token stream. Got: ::'],
    // Struct types in filters are read the same way, before anything goes upstream.
    ['suix_getOwnedObjects', ['0x1', { filter: { StructType: '0x2::coin::Coin<0x2::sui::SUI>\u0000' } }], 'Invalid struct type: 0x2::coin::Coin<0x2::sui::SUI>\\u0000. Got error: unrecognized token: \\u0000'],
    ['suix_queryEvents', [{ MoveEventType: '0x2::coin::CurrencyCreated<' }, null, 1, false], 'Invalid struct type: 0x2::coin::CurrencyCreated<. Got error: unexpected end of tokens'],
  ])('%s %j: a type that is no struct type is -32602 as on a node, charged 1, not echoed', async (method, params, reason) => {
    await expectRefused(method, params, reason);
  });
});
