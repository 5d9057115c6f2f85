import { describe, expect, it } from 'vitest';
import { JsonRpcDispatcher, type ParsedBody } from './dispatcher.js';
import { upstreamFailure, type JsonRpcContext, type JsonRpcMethod } from './method.js';
import { getLatestSuiSystemState } from './methods/reads/system.js';

const calls = (body: unknown) => new JsonRpcDispatcher({ methods: [] }).parse(JSON.stringify(body)) as Extract<ParsedBody, { kind: 'calls' }>;

/** An upstream whose one read (GetEpoch) answers an epoch without its system state. */
const epochWithoutState = (): JsonRpcContext => ({
  upstream: {
    call: async (_operation: string, invoke: (options: object) => Promise<unknown>) => invoke({}),
    grpc: { ledgerService: { getEpoch: async () => ({ response: { epoch: { epoch: 7n } } }) } },
  },
}) as unknown as JsonRpcContext;

describe('a method\'s own upstream failure (method.ts upstreamFailure)', () => {
  it('an upstream answer without what was asked is -32000 UPSTREAM_BAD_RESPONSE, not the caller\'s -32602, and not charged', async () => {
    const dispatcher = new JsonRpcDispatcher({ methods: [getLatestSuiSystemState] });
    const answer = await dispatcher.run(calls({ jsonrpc: '2.0', id: 3, method: 'suix_getLatestSuiSystemState', params: [] }), epochWithoutState);
    expect(JSON.parse(answer.body!)).toEqual({
      jsonrpc: '2.0', id: 3, error: { code: -32000, message: 'Server error: the upstream returned no system state', data: { code: 'UPSTREAM_BAD_RESPONSE' } },
    });
    expect(answer.billable).toBe(0);
  });

  it('in a batch, only the calls that did not fail upstream are charged', async () => {
    const failing: JsonRpcMethod = { name: 'sui_getChainIdentifier', translatesTo: 'test', handle: async () => { throw upstreamFailure('gone', 'UPSTREAM_UNAVAILABLE'); } };
    const working: JsonRpcMethod = { name: 'sui_getTotalTransactionBlocks', translatesTo: 'test', handle: async () => '1' };
    const dispatcher = new JsonRpcDispatcher({ methods: [failing, working] });
    const answer = await dispatcher.run(calls([
      { jsonrpc: '2.0', id: 1, method: 'sui_getChainIdentifier' },
      { jsonrpc: '2.0', id: 2, method: 'sui_getTotalTransactionBlocks' },
    ]), () => ({}) as JsonRpcContext);
    expect(JSON.parse(answer.body!)).toEqual([
      { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'Server error: gone', data: { code: 'UPSTREAM_UNAVAILABLE' } } },
      { jsonrpc: '2.0', id: 2, result: '1' },
    ]);
    expect(answer.billable).toBe(1);
  });
});
