import { JsonRpcHTTPTransport, SuiJsonRpcClient } from '@mysten/sui/jsonRpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJsonRpcE2E, type JsonRpcE2E } from '../support/jsonrpc-e2e.js';

/**
 * The official (deprecated, still shipped) `SuiJsonRpcClient` does its usual reads through the
 * gateway over HTTP, with the API key in `x-api-key`: the legacy shapes decode as the SDK expects.
 */
/** SUI's type as a node writes it (the SDK's SUI_TYPE_ARG is the 64-hex form its gRPC client uses). */
const SUI = '0x2::sui::SUI';

describe('SuiJsonRpcClient through the gateway', () => {
  let e: JsonRpcE2E;
  let client: SuiJsonRpcClient;
  let alice: string;
  beforeAll(async () => {
    e = await startJsonRpcE2E();
    alice = e.address('alice');
    const transport = new JsonRpcHTTPTransport({
      url: e.url,
      rpc: { headers: { 'x-api-key': e.gateway.adminKey } },
      // The test clock moves only when told: keep the SDK's calls inside the plan's rate.
      fetch: (input, init) => { e.gateway.clock.advance(25); return fetch(input, init); },
    });
    client = new SuiJsonRpcClient({ network: 'mainnet', transport });
  }, 60_000);
  afterAll(async () => e.stop());

  it('reads balances', async () => {
    const sui = await client.getBalance({ owner: alice });
    // Types as a node displays them, leading zeros dropped (the document's examples), as the transactions' balanceChanges write them.
    expect(sui.coinType).toBe(SUI);
    expect(BigInt(sui.totalBalance)).toBeGreaterThan(0n);
    const all = await client.getAllBalances({ owner: alice });
    expect(all.map((balance) => balance.totalBalance)).toContain(sui.totalBalance);
    expect(all.map((balance) => balance.coinType)).toContain(SUI);
    expect(all.filter((balance) => /0x0[0-9a-fA-F]/.test(balance.coinType))).toEqual([]);
    const coins = await client.getCoins({ owner: alice, limit: 1 });
    expect(coins.data[0]!.coinType).toBe(SUI);
  });

  it('pages coins with our cursors until the end, and the pages add up to the balance', async () => {
    const coins: { balance: string; coinObjectId: string }[] = [];
    let cursor: string | null | undefined;
    do {
      const page = await client.getCoins({ owner: alice, limit: 1, cursor });
      coins.push(...page.data);
      cursor = page.hasNextPage ? page.nextCursor : null;
    } while (cursor);
    const balance = await client.getBalance({ owner: alice });
    expect(coins.length).toBe(balance.coinObjectCount);
    expect(new Set(coins.map((coin) => coin.coinObjectId)).size).toBe(coins.length);
    const all = await client.getAllCoins({ owner: alice });
    expect(all.data.length).toBeGreaterThan(coins.length);
  });

  it('reads objects and owned objects with options', async () => {
    const owned = await client.getOwnedObjects({ owner: alice, options: { showType: true, showOwner: true, showContent: true }, limit: 5 });
    expect(owned.data.length).toBe(5);
    const first = owned.data[0]!.data!;
    expect(first.owner).toEqual({ AddressOwner: alice });
    const object = await client.getObject({ id: first.objectId, options: { showType: true, showBcs: true } });
    expect(object.data).toMatchObject({ objectId: first.objectId, version: first.version, type: first.type });
    const coin = await client.getObject({ id: (await client.getCoins({ owner: alice, limit: 1 })).data[0]!.coinObjectId, options: { showType: true, showContent: true } });
    expect(coin.data).toMatchObject({ type: `0x2::coin::Coin<${SUI}>`, content: { dataType: 'moveObject', type: `0x2::coin::Coin<${SUI}>` } });
    const many = await client.multiGetObjects({ ids: [first.objectId], options: { showPreviousTransaction: true } });
    expect(many[0]!.data!.previousTransaction).toEqual(expect.any(String));
    const past = await client.tryGetPastObject({ id: first.objectId, version: Number(first.version) });
    expect(past.status).toBe('VersionFound');
  });

  it('owned objects: a limit over 50, or 0, is the node\'s -32602 (validate_limit), not a silent cap', async () => {
    await expect(client.getOwnedObjects({ owner: alice, limit: 51 })).rejects.toMatchObject({
      code: -32602, message: 'Invalid params: Page size limit 51 exceeds max limit 50',
    });
    await expect(client.getOwnedObjects({ owner: alice, limit: 0 })).rejects.toMatchObject({
      code: -32602, message: 'Invalid params: Page size limit cannot be smaller than 1',
    });
    expect((await client.getOwnedObjects({ owner: alice, limit: 50 })).data.length).toBeGreaterThan(0);
  });

  it('reads checkpoints', async () => {
    const latest = await client.getLatestCheckpointSequenceNumber();
    const checkpoint = await client.getCheckpoint({ id: latest });
    expect(checkpoint.sequenceNumber).toBe(latest);
    const page = await client.getCheckpoints({ descendingOrder: false, limit: 2 });
    expect(page.data.map((entry) => entry.sequenceNumber)).toEqual(['0', '1']);
    const next = await client.getCheckpoints({ descendingOrder: false, limit: 2, cursor: page.nextCursor });
    expect(next.data[0]!.sequenceNumber).toBe('2');
  });

  it('pages checkpoints 100 at a time, as a node does (default and maximum 100; more, or 0, is -32602)', async () => {
    // A node's sui_getCheckpoints validates its limit against QUERY_MAX_RESULT_LIMIT_CHECKPOINTS
    // (100), not the 50 of the other pages: a client asking for 100 gets 100 in one answer.
    for (let i = 0; i < 101; i++) e.simnet.seal();
    const hundred = await client.getCheckpoints({ descendingOrder: false, limit: 100 });
    expect(hundred.data.map((entry) => entry.sequenceNumber)).toEqual(Array.from({ length: 100 }, (_, i) => String(i)));
    expect(hundred.hasNextPage).toBe(true);
    const byDefault = await client.getCheckpoints({ descendingOrder: true });
    expect(byDefault.data).toHaveLength(100);
    await expect(client.getCheckpoints({ descendingOrder: false, limit: 101 })).rejects.toMatchObject({
      code: -32602, message: 'Invalid params: Page size limit 101 exceeds max limit 100',
    });
    await expect(client.getCheckpoints({ descendingOrder: false, limit: 0 })).rejects.toMatchObject({
      code: -32602, message: 'Invalid params: Page size limit cannot be smaller than 1',
    });
  });

  it('reads the system state, gas price, chain identifier, coin metadata, stakes and APYs', async () => {
    const state = await client.getLatestSuiSystemState();
    expect(state.activeValidators.length).toBeGreaterThan(0);
    expect(await client.getReferenceGasPrice()).toBe(BigInt(state.referenceGasPrice));
    expect(await client.getChainIdentifier()).toMatch(/^[0-9a-f]{8}$/);
    expect(await client.getCoinMetadata({ coinType: '0x2::sui::SUI' })).toMatchObject({ decimals: 9, symbol: 'SUI' });
    const stakes = await client.getStakes({ owner: alice });
    expect(state.activeValidators.map((validator) => validator.suiAddress)).toContain(stakes[0]!.validatorAddress);
    const apys = await client.getValidatorsApy();
    expect(apys.epoch).toBe(state.epoch);
  });

  it('resolves names', async () => {
    expect(await client.resolveNameServiceAddress({ name: 'alice.sui' })).toBe(alice);
    expect((await client.resolveNameServiceNames({ address: alice })).data).toEqual(['alice.sui']);
  });

  it('an SDK error carries the JSON-RPC code', async () => {
    await expect(client.getCoins({ owner: alice, cursor: 'not-ours' })).rejects.toMatchObject({ code: -32602 });
  });
});
