import { bcs } from '@mysten/sui/bcs';
import { describe, expect, it } from 'vitest';
import { CATALOG, COIN_TYPES, EVENT_TYPES, OBJECT_TYPES } from './catalog.js';
import { SUI_COIN_TYPE, compareOwnerIndexKeys, createLedger, ownerIndexKey } from './index.js';
import { suiDigest } from './hashing.js';

const ledger = createLedger({ seed: 'ledger-happy' });

describe('genesis', () => {
  it('derives object and transaction digests the way Sui does', () => {
    const genesis = ledger.checkpointTransactions(0n)[0]!;
    expect(suiDigest('TransactionData', genesis.bcs)).toBe(genesis.digest);
    expect(suiDigest('TransactionEffects', genesis.effects.bcs)).toBe(genesis.effects.digest);
    const coin = ledger.listCoins(ledger.accounts[0]!.address, COIN_TYPES.SUI).items[0]!;
    expect(suiDigest('Object', coin.bcs)).toBe(coin.digest);
    expect(bcs.Object.parse(coin.bcs).data.Move?.type.$kind).toBe('GasCoin');
    expect(ledger.chainId).toBe(ledger.getCheckpoint(0n)!.digest);
  });

  it('has validators with exchange-rate history for APY', () => {
    const state = ledger.systemState();
    expect(state.validators.length).toBeGreaterThanOrEqual(4);
    for (const validator of state.validators) {
      expect(validator.exchangeRates.length).toBeGreaterThan(5);
      expect(ledger.listDynamicFields(validator.exchangeRatesId, { limit: 1000 }).items).toHaveLength(validator.exchangeRates.length);
    }
    expect(state.epoch).toBeGreaterThan(0n);
    expect(ledger.getEpoch(state.epoch - 1n)?.endTimestampMs).toBeDefined();
  });

  it('has coin types with and without metadata, stakes, NFTs with Display, names and allowances', () => {
    expect(ledger.getCoinType(COIN_TYPES.USDC)?.metadata?.decimals).toBe(6);
    expect(ledger.getCoinType(COIN_TYPES.MEME)?.metadata).toBeUndefined();
    const alice = ledger.accounts[0]!.address;
    expect(ledger.listOwnedObjects(alice, { type: OBJECT_TYPES.stakedSui }).items.length).toBeGreaterThan(0);
    const collectible = ledger.listOwnedObjects(alice, { type: OBJECT_TYPES.collectible }).items[0]!;
    expect(Object.keys(collectible.display!)).toEqual(expect.arrayContaining(['name', 'image_url', 'description', 'project_name', 'project_image_url']));
    expect(ledger.lookupName('alice.sui')?.targetAddress).toBe(alice);
    expect(ledger.reverseLookupName(alice)?.name).toBe('alice.sui');
    const allowances = ledger.listAllowances({ funder: alice });
    expect(allowances.length).toBeGreaterThan(0);
    expect(ledger.getObject(allowances[0]!.objectId)?.type).toBe(OBJECT_TYPES.allowance(allowances[0]!.coinType));
    expect(ledger.getBalance(ledger.accounts[1]!.address, COIN_TYPES.USDC).addressBalance).toBeGreaterThan(0n);
  });

  it('pages owned objects with opaque cursors and rejects foreign ones', () => {
    const alice = ledger.accounts[0]!.address;
    const first = ledger.listOwnedObjects(alice, {}, { limit: 3 });
    const second = ledger.listOwnedObjects(alice, {}, { limit: 3, cursor: first.nextCursor });
    // A node's owner-index order: by type, a type's coins largest first, then by id.
    expect(compareOwnerIndexKeys(ownerIndexKey(second.items[0]!), ownerIndexKey(first.items[2]!))).toBe(1);
    const all = ledger.listOwnedObjects(alice, {}, { limit: 1000 }).items;
    expect(all.map(ownerIndexKey)).toEqual(all.map(ownerIndexKey).sort(compareOwnerIndexKeys));
    const sui = all.filter((object) => object.coin?.coinType === SUI_COIN_TYPE).map((object) => object.coin!.balance);
    expect(sui.length).toBeGreaterThan(1);
    expect(sui).toEqual([...sui].sort((a, b) => (a === b ? 0 : a > b ? -1 : 1)));
    expect(() => ledger.listOwnedObjects(alice, {}, { cursor: ledger.listBalances(alice, { limit: 1 }).nextCursor })).toThrow(/invalid page token/);
  });
});

describe('transaction and event indexes', () => {
  it('page filtered listings the same as a full scan, both directions', async () => {
    const { Executor } = await import('../execution/index.js');
    const { CheckpointProducer, producerSenders } = await import('../producer/index.js');
    const busy = createLedger({ seed: 'indexes' });
    const producer = new CheckpointProducer(busy, new Executor(busy), { intervalMs: 1, transactionsPerCheckpoint: 20 });
    for (let i = 0; i < 4; i++) await producer.produceCheckpoint();
    const sender = producerSenders(busy.accounts)[0]!.address;
    const all = [...busy.iterateTransactions()].map(({ transaction }) => transaction).filter((tx) => tx.sender === sender);
    for (const descending of [false, true]) {
      const paged = [];
      let cursor: string | undefined;
      do {
        const page = busy.listTransactions({ sender }, { limit: 2, cursor, descending });
        paged.push(...page.items);
        cursor = page.nextCursor;
      } while (cursor);
      expect(paged.map((tx) => tx.digest)).toEqual((descending ? [...all].reverse() : all).map((tx) => tx.digest));
    }
    const swapType = `${CATALOG.dexPackage}::pool::SwapEvent`;
    const swaps = busy.listEvents({ type: swapType }, { limit: 1000 }).items;
    const allSwaps = [...busy.iterateEvents()].map(({ event }) => event).filter((event) => event.type.startsWith(`${swapType}<`));
    expect(swaps.length).toBeGreaterThan(0);
    expect(swaps).toEqual(allSwaps);
    expect(busy.listEvents({ type: EVENT_TYPES.wrappedDeposit }, { limit: 1000 }).items.every((event) => event.type === EVENT_TYPES.wrappedDeposit)).toBe(true);
    const checkpointTxs = busy.listTransactions({ checkpoint: 2n }, { limit: 1000 });
    expect(checkpointTxs.items.map((tx) => tx.digest)).toEqual(busy.getCheckpoint(2n)!.transactionDigests);
  });
});
