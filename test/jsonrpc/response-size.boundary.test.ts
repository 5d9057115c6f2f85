import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJsonRpcE2E, type JsonRpcE2E } from '../support/jsonrpc-e2e.js';

type Body = any; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON-RPC frames, checked field by field

const MAX = 2048;
const TOO_BIG = { code: -32008, message: 'Response is too big', data: `Exceeded max limit of ${MAX}` };
const BATCH_TOO_BIG = { code: -32011, message: 'The batch response was too large', data: `Exceeded max limit of ${MAX}` };

/**
 * SUIGW_JSONRPC_MAX_RESPONSE_BYTES on simnet, over HTTP and the WebSocket: the ids are echoed, so
 * an id padded to the right length puts an answer at exactly the bound, or one byte past it.
 */
describe('JSON-RPC answers at the size bound (jsonrpsee max_response_body_size)', () => {
  let e: JsonRpcE2E;
  let chainId: string;
  beforeAll(async () => {
    e = await startJsonRpcE2E({ env: { SUIGW_JSONRPC_MAX_RESPONSE_BYTES: String(MAX) } });
    chainId = await e.call('sui_getChainIdentifier');
  }, 60_000);
  afterAll(async () => e.stop());

  const remaining = (headers: Headers) => Number(headers.get('x-svc-credit-remaining'));
  /** A string id making `{"jsonrpc":"2.0","id":"<id>",<rest>}` weigh exactly `bytes`. */
  const idFor = (bytes: number, rest: object) => 'i'.repeat(bytes - Buffer.byteLength(JSON.stringify({ jsonrpc: '2.0', id: '', ...rest })));
  const chainIdCall = (id: string) => ({ jsonrpc: '2.0', id, method: 'sui_getChainIdentifier' });

  it('one call: exactly the bound is answered; one byte more is -32008 with its id, charged, HTTP 200', async () => {
    const atId = idFor(MAX, { result: chainId });
    const at = await e.send(chainIdCall(atId));
    expect(at.status).toBe(200);
    expect(at.body).toEqual({ jsonrpc: '2.0', id: atId, result: chainId });
    expect(Buffer.byteLength(JSON.stringify(at.body))).toBe(MAX);

    const before = remaining(at.headers);
    const over = await e.send(chainIdCall(`${atId}i`));
    expect(over.status).toBe(200);
    expect(over.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(over.body).toEqual({ jsonrpc: '2.0', id: `${atId}i`, error: TOO_BIG });
    expect(remaining(over.headers)).toBe(before - 1);
  });

  it('a batch: a whole answer of exactly the bound is answered; one byte more is one -32011, id null, every call charged', async () => {
    // `[a,b]`: two answers of (MAX - 3) / 2 bytes and a half, a comma and the brackets.
    const first = idFor(Math.floor((MAX - 3) / 2), { result: chainId });
    const second = idFor(MAX - 3 - Math.floor((MAX - 3) / 2), { result: chainId });
    const at = await e.send([chainIdCall(first), chainIdCall(second)]);
    expect(at.body).toEqual([{ jsonrpc: '2.0', id: first, result: chainId }, { jsonrpc: '2.0', id: second, result: chainId }]);
    expect(Buffer.byteLength(JSON.stringify(at.body))).toBe(MAX);

    const before = remaining(at.headers);
    const over = await e.send([chainIdCall(first), chainIdCall(`${second}i`)]);
    expect(over.status).toBe(200);
    expect(over.body).toEqual({ jsonrpc: '2.0', id: null, error: BATCH_TOO_BIG });
    expect(remaining(over.headers)).toBe(before - 2);
  });

  it('a batch of full transaction pages over the bound is refused whole, not answered 500', async () => {
    const options = { showInput: true, showEffects: true, showEvents: true, showObjectChanges: true, showBalanceChanges: true };
    const page = (id: number) => ({ jsonrpc: '2.0', id, method: 'suix_queryTransactionBlocks', params: [{ options }, null, 50, true] });
    const answer = await e.send(Array.from({ length: 50 }, (_, id) => page(id)));
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ jsonrpc: '2.0', id: null, error: BATCH_TOO_BIG });
  });

  it('the WebSocket: a call\'s answer frame of exactly the bound is sent; one byte more is -32008', async () => {
    const { socket, frames } = await e.socket(e.gateway.adminKey);
    const unsubscribe = (id: string) => socket.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'suix_unsubscribeEvent', params: [1] }));
    const frameOf = async (id: string): Promise<Body> => {
      await expect.poll(() => frames.some((frame) => frame.id === id)).toBe(true);
      return frames.find((frame) => frame.id === id);
    };
    const atId = idFor(MAX, { result: false });
    unsubscribe(atId);
    expect(await frameOf(atId)).toEqual({ jsonrpc: '2.0', id: atId, result: false });
    unsubscribe(`${atId}i`);
    expect(await frameOf(`${atId}i`)).toEqual({ jsonrpc: '2.0', id: `${atId}i`, error: TOO_BIG });
    socket.close();
  });
});
