import { fromBase64, toBase64 } from '@mysten/sui/utils';
import { Transaction } from '@mysten/sui/transactions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJsonRpcE2E, type JsonRpcE2E } from '../support/jsonrpc-e2e.js';
import { checkResult } from './legacy-result-schemas.js';

type Body = any; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON-RPC results, checked field by field

const ALL_OPTIONS = {
  showInput: true, showRawInput: true, showEffects: true, showEvents: true, showObjectChanges: true, showBalanceChanges: true, showRawEffects: true,
};

/** The transaction, event, execution and builder methods through the gateway on simnet, each result valid against the document. */
describe('JSON-RPC transactions, events, execution, builders', () => {
  let e: JsonRpcE2E;
  let alice: string;
  let bob: string;
  let executed: string;
  const call = async (method: string, params: unknown): Promise<Body> => {
    const result = await e.call(method, params);
    expect(checkResult(method, result), `${method} result against the document`).toBeNull();
    return result;
  };
  const suiCoins = async (owner: string): Promise<{ coinObjectId: string; balance: string }[]> => (await e.call('suix_getCoins', [owner])).data;

  beforeAll(async () => {
    // Generated traffic (Move calls with events, transfers between other accounts) around ours.
    e = await startJsonRpcE2E({ simnet: { transactionsPerCheckpoint: 2 } });
    alice = e.address('alice');
    bob = e.address('bob');
    // A transfer from alice, built by the gateway, signed here, executed through the gateway.
    const [coin] = await suiCoins(alice);
    const built = await e.call('unsafe_paySui', [alice, [coin!.coinObjectId], [bob], ['1000'], '10000000']);
    const keypair = e.simnet.accounts.find((a) => a.label === 'alice')!.keypair;
    const { signature } = await keypair.signTransaction(fromBase64(built.txBytes));
    const result = await e.call('sui_executeTransactionBlock', [built.txBytes, [signature], ALL_OPTIONS, 'WaitForLocalExecution']);
    executed = result.digest;
    e.simnet.seal();
  }, 60_000);
  afterAll(async () => e.stop());

  it('sui_getTransactionBlock renders every option flag in the legacy shape', async () => {
    const tx = await call('sui_getTransactionBlock', [executed, ALL_OPTIONS]);
    expect(tx.digest).toBe(executed);
    expect(tx.transaction.data.sender).toBe(alice);
    expect(tx.transaction.data.messageVersion).toBe('v1');
    expect(tx.transaction.data.transaction.kind).toBe('ProgrammableTransaction');
    expect(tx.transaction.data.transaction.transactions.map((t: object) => Object.keys(t)[0])).toEqual(['SplitCoins', 'TransferObjects']);
    expect(tx.transaction.data.transaction.inputs).toContainEqual({ type: 'pure', valueType: 'u64', value: '1000' });
    expect(tx.transaction.data.transaction.inputs).toContainEqual({ type: 'pure', valueType: 'address', value: bob });
    expect(typeof tx.transaction.txSignatures[0]).toBe('string');
    expect(tx.effects.status).toEqual({ status: 'success' });
    expect(tx.effects.gasObject.owner).toEqual({ AddressOwner: alice });
    expect(tx.effects.created).toHaveLength(1);
    expect(tx.effects.created[0].owner).toEqual({ AddressOwner: bob });
    expect(tx.balanceChanges).toContainEqual({ owner: { AddressOwner: bob }, coinType: '0x2::sui::SUI', amount: '1000' });
    expect(tx.objectChanges.find((c: Body) => c.type === 'created')).toMatchObject({ sender: alice, owner: { AddressOwner: bob }, objectType: '0x2::coin::Coin<0x2::sui::SUI>' });
    expect(tx.rawEffects.length).toBeGreaterThan(0);
    expect(fromBase64(tx.rawTransaction).length).toBeGreaterThan(fromBase64(tx.transaction.txSignatures[0]).length);
    expect(tx.checkpoint).toMatch(/^[0-9]+$/);
    expect(tx.timestampMs).toMatch(/^[0-9]+$/);
  });

  it('sui_getTransactionBlock without options shows only the digest, checkpoint and time', async () => {
    const tx = await call('sui_getTransactionBlock', [executed]);
    expect(Object.keys(tx).sort()).toEqual(['checkpoint', 'digest', 'timestampMs']);
  });

  it('sui_multiGetTransactionBlocks keeps the order asked for', async () => {
    const page = await call('suix_queryTransactionBlocks', [{ filter: null, options: null }, null, 3, false]);
    const digests = page.data.map((t: Body) => t.digest).reverse();
    const many = await call('sui_multiGetTransactionBlocks', [digests, { showEffects: true }]);
    expect(many.map((t: Body) => t.digest)).toEqual(digests);
    expect(many.every((t: Body) => t.effects.transactionDigest === t.digest)).toBe(true);
  });

  it('suix_queryTransactionBlocks pages with our cursors, both orders, by sender', async () => {
    const query = { filter: { FromAddress: alice }, options: { showInput: true } };
    const all = await call('suix_queryTransactionBlocks', [query, null, 50, false]);
    expect(all.data.map((t: Body) => t.digest)).toContain(executed);
    expect(all.data.every((t: Body) => t.transaction.data.sender === alice)).toBe(true);

    const first = await call('suix_queryTransactionBlocks', [{ filter: null }, null, 2, false]);
    expect(first.data).toHaveLength(2);
    expect(first.hasNextPage).toBe(true);
    const second = await call('suix_queryTransactionBlocks', [{ filter: null }, first.nextCursor, 2, false]);
    const three = await call('suix_queryTransactionBlocks', [{ filter: null }, null, 4, false]);
    expect([...first.data, ...second.data].map((t: Body) => t.digest)).toEqual(three.data.map((t: Body) => t.digest));

    const newest = await call('suix_queryTransactionBlocks', [{ filter: null }, null, 1, true]);
    const latest = await e.call('sui_getLatestCheckpointSequenceNumber', []);
    const tip = await call('sui_getTransactionBlock', [newest.data[0].digest]);
    expect(BigInt(tip.checkpoint)).toBeLessThanOrEqual(BigInt(latest));
    expect(BigInt(tip.checkpoint)).toBeGreaterThan(BigInt(first.data[0].checkpoint ?? 0));
  });

  it('sui_getEvents and suix_queryEvents (All, Sender, Transaction, MoveEventType) with cursors', async () => {
    const page = await call('suix_queryEvents', [{ All: [] }, null, 3, false]);
    expect(page.data.length).toBeGreaterThan(0);
    const event = page.data[0];
    expect(event.bcsEncoding).toBe('base64');
    const ofTx = await call('sui_getEvents', [event.id.txDigest]);
    expect(ofTx[Number(event.id.eventSeq)]).toMatchObject({ id: event.id, type: event.type, sender: event.sender });

    const byTx = await call('suix_queryEvents', [{ Transaction: event.id.txDigest }, null, 50, false]);
    expect(byTx.data.map((x: Body) => x.id)).toEqual(ofTx.map((x: Body) => x.id));

    const byType = await call('suix_queryEvents', [{ MoveEventType: event.type }, null, 5, false]);
    expect(byType.data.length).toBeGreaterThan(0);
    expect(byType.data.every((x: Body) => x.type === event.type)).toBe(true);

    const bySender = await call('suix_queryEvents', [{ Sender: event.sender }, null, 5, false]);
    expect(bySender.data.every((x: Body) => x.sender === event.sender)).toBe(true);

    if (page.hasNextPage) {
      const next = await call('suix_queryEvents', [{ All: [] }, page.nextCursor, 3, false]);
      const six = await call('suix_queryEvents', [{ All: [] }, null, 6, false]);
      expect([...page.data, ...next.data].map((x: Body) => x.id)).toEqual(six.data.slice(0, page.data.length + next.data.length).map((x: Body) => x.id));
    }
  });

  it('sui_dryRunTransactionBlock and sui_devInspectTransactionBlock simulate without executing', async () => {
    const [coin] = await suiCoins(alice);
    const built = await call('unsafe_paySui', [alice, [coin!.coinObjectId], [bob], ['5'], '10000000']);
    const dry = await call('sui_dryRunTransactionBlock', [built.txBytes]);
    expect(dry.effects.status).toEqual({ status: 'success' });
    expect(dry.input.sender).toBe(alice);
    expect(dry.balanceChanges).toContainEqual({ owner: { AddressOwner: bob }, coinType: '0x2::sui::SUI', amount: '5' });

    const kind = new Transaction();
    kind.transferObjects([kind.splitCoins(kind.gas, [7])[0]!], bob);
    const kindBytes = await kind.build({ onlyTransactionKind: true });
    const inspect = await call('sui_devInspectTransactionBlock', [alice, toBase64(kindBytes), null, null, { showRawTxnDataAndEffects: true }]);
    expect(inspect.effects.status).toEqual({ status: 'success' });
    expect(inspect.rawTxnData.length).toBeGreaterThan(kindBytes.length);
  });

  it('the unsafe_* builders answer TransactionBlockBytes a dry run accepts', async () => {
    const coins = await suiCoins(alice);
    expect(coins.length).toBeGreaterThanOrEqual(3);
    const [a, b, c] = coins.map((coin) => coin.coinObjectId);
    const cases: [string, unknown[]][] = [
      ['unsafe_transferObject', [alice, a, null, '10000000', bob]],
      ['unsafe_transferSui', [alice, a, '10000000', bob, '100']],
      ['unsafe_pay', [alice, [a], [bob], ['100'], null, '10000000']],
      ['unsafe_paySui', [alice, [a, b], [bob, bob], ['1', '2'], '10000000']],
      ['unsafe_payAllSui', [alice, [a, b], bob, '10000000']],
      ['unsafe_splitCoin', [alice, a, ['10', '20'], null, '10000000']],
      ['unsafe_mergeCoins', [alice, a, b, c, '10000000']],
      ['unsafe_batchTransaction', [alice, [{ transferObjectRequestParams: { objectId: a, recipient: bob } }], null, '10000000']],
    ];
    for (const [method, params] of cases) {
      const built = await call(method, params);
      expect(built.gas.length, method).toBeGreaterThan(0);
      const dry = await e.call('sui_dryRunTransactionBlock', [built.txBytes]);
      expect(dry.effects.status, method).toEqual({ status: 'success' });
      expect(dry.input.sender, method).toBe(alice);
    }
  });

  it('unsafe_batchTransaction never picks as gas a coin one of its Move calls takes', async () => {
    // Whichever coin the choice would fall on first, taking each in turn as the argument covers it.
    for (const coin of (await suiCoins(alice)).slice(0, 3)) {
      const built = await call('unsafe_batchTransaction', [alice, [{
        moveCallRequestParams: { packageObjectId: '0x2', module: 'coin', function: 'value', typeArguments: ['0x2::sui::SUI'], arguments: [coin.coinObjectId] },
      }], null, '10000000']);
      expect(built.gas.map((gas: { objectId: string }) => gas.objectId)).not.toContain(coin.coinObjectId);
      const dry = await e.call('sui_dryRunTransactionBlock', [built.txBytes]);
      expect(dry.effects.status).toEqual({ status: 'success' });
    }
  });

  it('a builder picks a gas coin of the signer\'s outside the inputs when none is given', async () => {
    const coins = await suiCoins(alice);
    const built = await call('unsafe_transferObject', [alice, coins[0]!.coinObjectId, null, '10000000', bob]);
    expect(built.gas).toHaveLength(1);
    expect(built.gas[0].objectId).not.toBe(coins[0]!.coinObjectId);
    expect(coins.map((coin) => coin.coinObjectId)).toContain(built.gas[0].objectId);
    expect(built.inputObjects).toContainEqual({ ImmOrOwnedMoveObject: built.gas[0] });
  });
});
