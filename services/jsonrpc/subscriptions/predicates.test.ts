import { describe, expect, it } from 'vitest';
import { FILTER_LIMITS } from '../../streams/index.js';
import { JsonRpcError } from '../method.js';
import { compileEventFilter, compileTransactionFilter, indexEvent, type LegacyEvent } from './predicates.js';

const SENDER = '0x00000000000000000000000000000000000000000000000000000000000000a1';
const sender = (n: number) => ({ Sender: `0x${n.toString(16)}` });
const event = (overrides: Partial<LegacyEvent> = {}): LegacyEvent => ({
  id: { txDigest: 'D1', eventSeq: '0' }, packageId: `0x${'0'.repeat(63)}2`, transactionModule: 'pay', sender: SENDER,
  type: `0x${'0'.repeat(63)}2::coin::CoinEvent<0x${'0'.repeat(63)}2::sui::SUI>`, timestampMs: '1000', ...overrides,
});

function refusal(compile: () => unknown): { code: number; message: string; data: unknown } {
  try {
    compile();
  } catch (error) {
    if (error instanceof JsonRpcError) return { code: error.code, message: error.message, data: error.data };
    throw error;
  }
  throw new Error('the filter was accepted');
}

/** Nests `leaf` in `levels - 1` Any combinators: depth `levels`. */
const nested = (levels: number, leaf: unknown): unknown => (levels <= 1 ? leaf : { Any: [nested(levels - 1, leaf)] });

describe('JSON-RPC subscription filters: compiled once, within the shared limits', () => {
  it('matches every event variant through its index, types normalized at subscribe time', () => {
    const filter = compileEventFilter({ Any: [
      { MoveEventType: '0x2::coin::CoinEvent<0x2::sui::SUI>' },
      { Sender: '0xb0b' },
      { Any: [{ MoveEventModule: { package: '0x3', module: 'staking' } }, { TimeRange: { startTime: '5000', endTime: '6000' } }] },
    ] });
    expect(filter.matches(indexEvent(event()))).toBe(true);
    expect(filter.matches(indexEvent(event({ type: '0x2::coin::Other', sender: `0x${'0'.repeat(61)}b0b` })))).toBe(true);
    expect(filter.matches(indexEvent(event({ type: '0x3::staking::Staked', sender: SENDER })))).toBe(true);
    expect(filter.matches(indexEvent(event({ type: '0x2::coin::Other', timestampMs: '5999' })))).toBe(true);
    expect(filter.matches(indexEvent(event({ type: '0x2::coin::Other', timestampMs: '6000' })))).toBe(false);
    expect(compileEventFilter({ All: [] }).matches(indexEvent(event()))).toBe(true);
    expect(compileEventFilter({ MoveModule: { package: '0x2', module: 'pay' } }).matches(indexEvent(event()))).toBe(true);
    expect(compileEventFilter({ Transaction: 'D2' }).matches(indexEvent(event()))).toBe(false);
  });

  it(`parts: ${FILTER_LIMITS.maxParts} pass (Any + ${FILTER_LIMITS.maxParts - 1}), one more is -32602 naming the limit`, () => {
    const any = (leaves: number) => ({ Any: Array.from({ length: leaves }, () => sender(1)) });
    expect(compileEventFilter(any(FILTER_LIMITS.maxParts - 1)).distinctValues).toBe(1);
    expect(refusal(() => compileEventFilter(any(FILTER_LIMITS.maxParts)))).toEqual({
      code: -32602, message: 'Invalid params: the filter exceeds 200 parts (limit: partsPerFilter)', data: { code: 'FILTER_LIMIT_EXCEEDED', limit: 'partsPerFilter', max: 200 },
    });
  });

  it(`depth: ${FILTER_LIMITS.maxDepth} levels pass, ${FILTER_LIMITS.maxDepth + 1} are -32602`, () => {
    expect(compileEventFilter(nested(FILTER_LIMITS.maxDepth, sender(1))).distinctValues).toBe(1);
    expect(refusal(() => compileEventFilter(nested(FILTER_LIMITS.maxDepth + 1, sender(1))))).toEqual({
      code: -32602, message: 'Invalid params: the filter exceeds 4 levels of nesting (limit: depthPerFilter)', data: { code: 'FILTER_LIMIT_EXCEEDED', limit: 'depthPerFilter', max: 4 },
    });
  });

  it(`distinct values: ${FILTER_LIMITS.maxDistinctValues} pass, one more is -32602 (two spellings of one address are one value)`, () => {
    const distinct = (n: number) => ({ Any: Array.from({ length: n }, (_, i) => sender(i + 1)) });
    expect(compileEventFilter(distinct(FILTER_LIMITS.maxDistinctValues)).distinctValues).toBe(100);
    expect(compileEventFilter({ Any: [{ Sender: '0x1' }, { Sender: `0x${'0'.repeat(63)}1` }] }).distinctValues).toBe(1);
    expect(refusal(() => compileEventFilter(distinct(FILTER_LIMITS.maxDistinctValues + 1)))).toEqual({
      code: -32602, message: 'Invalid params: the filter exceeds 100 distinct values (limit: distinctValuesPerFilter)', data: { code: 'FILTER_LIMIT_EXCEEDED', limit: 'distinctValuesPerFilter', max: 100 },
    });
  });

  it(`bytes: a filter of ${FILTER_LIMITS.maxBytes} bytes passes, one byte more is -32602 (events and transactions alike)`, () => {
    // {"Transaction":"…"} is 18 bytes around the digest.
    const sized = (bytes: number) => ({ Transaction: 'D'.repeat(bytes - 18) });
    expect(compileEventFilter(sized(FILTER_LIMITS.maxBytes)).bytes).toBe(FILTER_LIMITS.maxBytes);
    const expected = { code: -32602, message: 'Invalid params: the filter exceeds 32768 bytes (limit: bytesPerFilter)', data: { code: 'FILTER_LIMIT_EXCEEDED', limit: 'bytesPerFilter', max: 32768 } };
    expect(refusal(() => compileEventFilter(sized(FILTER_LIMITS.maxBytes + 1)))).toEqual(expected);
    const kinds = (bytes: number) => ({ TransactionKindIn: ['P'.repeat(bytes - 26)] });
    expect(compileTransactionFilter(kinds(FILTER_LIMITS.maxBytes)).bytes).toBe(FILTER_LIMITS.maxBytes);
    expect(refusal(() => compileTransactionFilter(kinds(FILTER_LIMITS.maxBytes + 1)))).toEqual(expected);
  });

  it('a filter of the wrong shape is -32602, never an internal error', () => {
    expect(refusal(() => compileEventFilter({ Any: { Sender: '0x1' } })).message).toBe('Invalid params: Any must be a list of filters');
    expect(refusal(() => compileEventFilter({ TimeRange: { startTime: 'soon', endTime: '1' } })).message).toBe('Invalid params: TimeRange.startTime must be an integer string');
    expect(refusal(() => compileEventFilter({ MoveModule: null })).message).toBe('Invalid params: MoveModule must be {package, module}');
    expect(refusal(() => compileTransactionFilter({ MoveFunction: null })).message).toBe('Invalid params: malformed MoveFunction filter');
    expect(refusal(() => compileTransactionFilter({ TransactionKindIn: 'ProgrammableTransaction' })).message).toBe('Invalid params: TransactionKindIn must be a list of kinds');
  });
});
