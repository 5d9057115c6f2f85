import { describe, expect, it } from 'vitest';
import { GrpcTypes } from '@mysten/sui/grpc';
import { TransactionBlock } from '../schemas.js';
import { includeAll, includeNone, stripBcs, toActivityItem, toTransactionBlock } from './map-transaction.js';

const A = `0x${'a'.repeat(64)}`;
const B = `0x${'b'.repeat(64)}`;
const SUI = '0x2::sui::SUI';
const FULL_SUI = `0x${'0'.repeat(63)}2::sui::SUI`;

function tx(sender: string, changes: [string, string, string][], success = true) {
  return GrpcTypes.ExecutedTransaction.create({
    digest: 'DJjb3zMU7AqzjqW4Ds3B1pcJ4RqFSu4vW4EyTGn3eEWR',
    checkpoint: 7n,
    timestamp: { seconds: 1_700_000_000n, nanos: 123_000_000 },
    transaction: { digest: 'DJjb3zMU7AqzjqW4Ds3B1pcJ4RqFSu4vW4EyTGn3eEWR', sender, gasPayment: { objects: [], budget: 10n, price: 1000n }, bcs: { value: new Uint8Array([1, 2]) } },
    effects: { status: { success, ...(success ? {} : { error: { description: 'MoveAbort' } }) }, changedObjects: [{ objectId: '0x5', idOperation: 2, outputState: 2, outputVersion: 3n, objectType: '0x2::coin::Coin<0x2::sui::SUI>' }], dependencies: [], unchangedConsensusObjects: [], unchangedLoadedRuntimeObjects: [] },
    events: { events: [{ packageId: '0x2', module: 'pay', sender, eventType: '0x2::pay::Paid<0x2::sui::SUI>' }] },
    balanceChanges: changes.map(([address, coinType, amount]) => ({ address, coinType, amount })),
    signatures: [],
  });
}

describe('toTransactionBlock', () => {
  it('renders the spec shape with strings, full type strings and v2 nodes', () => {
    const block = toTransactionBlock(tx(A, [[A, SUI, '-1010'], [B, SUI, '1000']]), includeAll);
    expect(TransactionBlock.parse(block)).toBeTruthy();
    expect(block.checkpoint).toBe('7');
    expect(block.timestampMs).toBe('1700000000123');
    expect(block.balanceChanges).toEqual([
      { owner: { AddressOwner: A }, coinType: FULL_SUI, amount: '-1010' },
      { owner: { AddressOwner: B }, coinType: FULL_SUI, amount: '1000' },
    ]);
    expect(block.events?.[0]).toMatchObject({ id: { txDigest: block.digest, eventSeq: '0' }, type: `0x${'0'.repeat(63)}2::pay::Paid<${FULL_SUI}>`, timestampMs: '1700000000123' });
    expect(block.effects).toMatchObject({ status: 'SUCCESS', effectsJson: expect.any(Object) });
    expect(block.transaction).toMatchObject({ digest: block.digest, sender: A, transactionJson: { gasPayment: expect.any(Object) } });
    expect(block.objectChanges?.[0]).toMatchObject({ type: 'created', objectType: `0x${'0'.repeat(63)}2::coin::Coin<${FULL_SUI}>` });
  });

  it('leaves out what the include flags do not ask for', () => {
    const block = toTransactionBlock(tx(A, [[A, SUI, '-1']]), includeNone);
    expect(block.events).toBeNull();
    expect(block.balanceChanges).toBeNull();
    expect((block.transaction as { transactionJson: object }).transactionJson).not.toHaveProperty('gasPayment');
    expect(block.transaction).not.toHaveProperty('signatures');
  });

  it('reports failed transactions with their error', () => {
    const block = toTransactionBlock(tx(A, [], false), includeNone);
    expect(block.effects).toMatchObject({ status: 'FAILURE' });
    expect(block.errors).toEqual(['MoveAbort']);
  });

  it('stripBcs drops the blobs', () => {
    expect(stripBcs(tx(A, [])).transaction?.bcs).toBeUndefined();
  });
});

describe('toActivityItem', () => {
  it('sent: counterparty and amount from the credit to the other address, not the gas', () => {
    const item = toActivityItem(tx(A, [[A, SUI, '-1010'], [B, SUI, '1000']]), A);
    expect(item).toMatchObject({ type: 'sent', amount: '1000', coinType: FULL_SUI, counterparty: B, timestamp: '2023-11-14T22:13:20.123Z' });
  });

  it('received: the account credit, counterparty is the sender', () => {
    const item = toActivityItem(tx(A, [[A, SUI, '-1010'], [B, SUI, '1000']]), B);
    expect(item).toMatchObject({ type: 'received', amount: '1000', coinType: FULL_SUI, counterparty: A });
  });

  it('sent without a counterparty: the account debit, counterparty null', () => {
    const item = toActivityItem(tx(A, [[A, SUI, '-10']]), A);
    expect(item).toMatchObject({ type: 'sent', amount: '10', counterparty: null });
  });
});

describe('objectChanges (what a node reports as the transaction\'s object changes)', () => {
  const FULL = (short: string) => `0x${short.slice(2).padStart(64, '0')}`;
  const owner = { kind: 1, address: A };
  function withChanges(changedObjects: GrpcTypes.ChangedObject[]) {
    const base = tx(A, []);
    return GrpcTypes.ExecutedTransaction.create({ ...base, effects: { ...base.effects, lamportVersion: 9n, changedObjects } });
  }

  it('a published package is `published`, a deleted or wrapped object carries the version the transaction left (its lamport version)', () => {
    const block = toTransactionBlock(withChanges([
      // publish: a new id, written as a package
      { objectId: '0xe1', inputState: 1, outputState: 3, idOperation: 2, outputVersion: 1n, outputDigest: 'P', objectType: 'package' },
      // a coin merged away
      { objectId: '0xd1', inputState: 2, inputVersion: 4n, outputState: 1, idOperation: 3, objectType: '0x2::coin::Coin<0x2::sui::SUI>' },
      // an object wrapped into another
      { objectId: '0xa1', inputState: 2, inputVersion: 6n, outputState: 1, idOperation: 1, objectType: '0x2::coin::Coin<0x2::sui::SUI>' },
      // the gas coin
      { objectId: '0xc1', inputState: 2, inputVersion: 8n, outputState: 2, idOperation: 1, outputVersion: 9n, outputDigest: 'G', outputOwner: owner, objectType: '0x2::coin::Coin<0x2::sui::SUI>' },
    ]), includeNone);
    expect(block.objectChanges).toEqual([
      expect.objectContaining({ type: 'published', objectId: FULL('0xe1'), version: '1', previousVersion: null }),
      expect.objectContaining({ type: 'deleted', objectId: FULL('0xd1'), version: '9', previousVersion: '4' }),
      expect.objectContaining({ type: 'wrapped', objectId: FULL('0xa1'), version: '9', previousVersion: '6' }),
      expect.objectContaining({ type: 'mutated', objectId: FULL('0xc1'), version: '9', previousVersion: '8' }),
    ]);
  });

  it('an address-balance (accumulator) write is no object change, and an unwrapped object is `unwrapped`', () => {
    const block = toTransactionBlock(withChanges([
      { objectId: '0xac', inputState: 1, outputState: 4, idOperation: 1 },
      { objectId: '0xb1', inputState: 1, outputState: 2, idOperation: 1, outputVersion: 9n, outputDigest: 'U', outputOwner: owner, objectType: '0x2::coin::Coin<0x2::sui::SUI>' },
    ]), includeNone);
    expect(block.objectChanges).toEqual([expect.objectContaining({ type: 'unwrapped', objectId: FULL('0xb1'), version: '9' })]);
  });
});
