import { describe, expect, it } from 'vitest';
import { JsonRpcDispatcher, type ParsedBody } from './dispatcher.js';
import type { JsonRpcContext, JsonRpcMethod } from './method.js';
import { DEFAULT_MAX_RESPONSE_BYTES } from './response-size.js';

const MAX = 1024;

/** A method without params answering `result` (or what `answer` resolves to). */
function method(name: string, answer: () => unknown): JsonRpcMethod {
  return { name, translatesTo: 'test', handle: async () => answer() };
}

function dispatcherWith(methods: JsonRpcMethod[]) {
  return new JsonRpcDispatcher({ methods, maxResponseBytes: MAX });
}

const call = (id: number, name: string) => ({ jsonrpc: '2.0', id, method: name });
const calls = (body: unknown) => new JsonRpcDispatcher({ methods: [] }).parse(JSON.stringify(body)) as Extract<ParsedBody, { kind: 'calls' }>;
const noContext = (): JsonRpcContext => ({}) as JsonRpcContext;

/** The bytes of `{"jsonrpc":"2.0","id":<id>,"result":""}`: what a string result of `n` characters adds `n` to. */
const envelopeBytes = (id: number) => Buffer.byteLength(JSON.stringify({ jsonrpc: '2.0', id, result: '' }));

describe('JSON-RPC answer size (jsonrpsee max_response_body_size)', () => {
  it('defaults to jsonrpsee\'s 10 MiB', () => {
    expect(DEFAULT_MAX_RESPONSE_BYTES).toBe(10 * 1024 * 1024);
    expect(new JsonRpcDispatcher({ methods: [] }).maxResponseBytes).toBe(10 * 1024 * 1024);
  });

  it('one call: an answer of exactly the bound is sent; one byte more is -32008 with its id', async () => {
    let size = MAX - envelopeBytes(7);
    const dispatcher = dispatcherWith([method('sui_getChainIdentifier', () => 'x'.repeat(size))]);
    const at = await dispatcher.run(calls(call(7, 'sui_getChainIdentifier')), noContext);
    expect(Buffer.byteLength(at.body!)).toBe(MAX);
    expect(JSON.parse(at.body!)).toEqual({ jsonrpc: '2.0', id: 7, result: 'x'.repeat(size) });

    size += 1;
    const over = await dispatcher.run(calls(call(7, 'sui_getChainIdentifier')), noContext);
    expect(JSON.parse(over.body!)).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32008, message: 'Response is too big', data: 'Exceeded max limit of 1024' } });
    expect(over.billable).toBe(1);
  });

  it('counts UTF-8 bytes, not characters', async () => {
    // 'é' is two bytes: half as many characters reach the same bound.
    let characters = (MAX - envelopeBytes(1)) / 2;
    expect(Number.isInteger(characters)).toBe(true);
    const dispatcher = dispatcherWith([method('sui_getChainIdentifier', () => 'é'.repeat(characters))]);
    expect(JSON.parse((await dispatcher.run(calls(call(1, 'sui_getChainIdentifier')), noContext)).body!).result).toHaveLength(characters);
    characters += 1;
    expect(JSON.parse((await dispatcher.run(calls(call(1, 'sui_getChainIdentifier')), noContext)).body!).error.code).toBe(-32008);
  });

  it('a batch: a whole answer of exactly the bound is sent; one byte more is one -32011 with id null, every call charged', async () => {
    // `[a,b]`: two answers, a comma and the brackets.
    const first = 'a'.repeat(400);
    let second = 'b'.repeat(MAX - 3 - envelopeBytes(1) - first.length - envelopeBytes(2));
    const dispatcher = dispatcherWith([
      method('sui_getChainIdentifier', () => first),
      method('sui_getTotalTransactionBlocks', () => second),
    ]);
    const batch = [call(1, 'sui_getChainIdentifier'), call(2, 'sui_getTotalTransactionBlocks')];
    const at = await dispatcher.run(calls(batch), noContext);
    expect(Buffer.byteLength(at.body!)).toBe(MAX);
    expect(JSON.parse(at.body!)).toEqual([{ jsonrpc: '2.0', id: 1, result: first }, { jsonrpc: '2.0', id: 2, result: second }]);

    second += 'b';
    const over = await dispatcher.run(calls(batch), noContext);
    expect(JSON.parse(over.body!)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32011, message: 'The batch response was too large', data: 'Exceeded max limit of 1024' } });
    expect(over.billable).toBe(2);
  });

  it('a batch: one call over the bound is -32008 in its place, the others answered', async () => {
    const dispatcher = dispatcherWith([
      method('sui_getChainIdentifier', () => 'x'.repeat(MAX)),
      method('sui_getTotalTransactionBlocks', () => '42'),
    ]);
    const answer = await dispatcher.run(calls([call(1, 'sui_getChainIdentifier'), call(2, 'sui_getTotalTransactionBlocks')]), noContext);
    expect(JSON.parse(answer.body!)).toEqual([
      { jsonrpc: '2.0', id: 1, error: { code: -32008, message: 'Response is too big', data: 'Exceeded max limit of 1024' } },
      { jsonrpc: '2.0', id: 2, result: '42' },
    ]);
  });

  it('a batch over the bound stops early: the transport is told once, and later answers are never serialized', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let serialized = 0;
    const late = { toJSON: () => ((serialized += 1), 'late') };
    let told = 0;
    const dispatcher = dispatcherWith([
      method('sui_getChainIdentifier', () => 'x'.repeat(600)),
      method('sui_getTotalTransactionBlocks', () => 'y'.repeat(600)),
      // Answers only once the transport was told (as a cancelled upstream call would end).
      method('sui_getLatestCheckpointSequenceNumber', async () => (await released, late)),
    ]);
    const answer = await dispatcher.run(calls([
      call(1, 'sui_getChainIdentifier'), call(2, 'sui_getTotalTransactionBlocks'), call(3, 'sui_getLatestCheckpointSequenceNumber'),
    ]), noContext, () => {
      told += 1;
      release();
    });
    expect(told).toBe(1);
    expect(serialized).toBe(0);
    expect(JSON.parse(answer.body!).error.code).toBe(-32011);
    expect(answer.billable).toBe(3);
  });

  it('a batch of notifications still answers nothing', async () => {
    const dispatcher = dispatcherWith([method('sui_getChainIdentifier', () => 'x'.repeat(2 * MAX))]);
    const answer = await dispatcher.run(calls([{ jsonrpc: '2.0', method: 'sui_getChainIdentifier' }]), noContext);
    expect(answer.body).toBeUndefined();
  });
});
