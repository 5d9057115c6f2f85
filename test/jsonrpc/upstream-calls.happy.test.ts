import { requestSuiFromFaucetV2 } from '@mysten/sui/faucet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Metrics } from '../../services/core/index.js';
import { CATALOG, COIN_TYPES } from '../../services/simnet/index.js';
import { startJsonRpcE2E, type JsonRpcE2E } from '../support/jsonrpc-e2e.js';

type Result = any; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON-RPC results, compared whole or field by field

/**
 * What a JSON-RPC call costs upstream, counted on the gateway's own upstream instrument
 * (`suigw_upstream_calls_total`, one per attempt) against simnet: an immutable read is fetched
 * once and then answered from the cache with no upstream call, a mutable one again after its TTL
 * on the test's clock; every call is still charged its credit. Reads that a node answers from one
 * index take one upstream call per page, not one per item.
 */
describe('JSON-RPC upstream calls per request', () => {
  const metrics = new Metrics({ defaultMetrics: false });
  let e: JsonRpcE2E;
  let ids = 0;

  beforeAll(async () => {
    // The producer paused: checkpoints are sealed when the test says, so a transaction can wait outside one.
    e = await startJsonRpcE2E({ extra: { metrics }, simnet: { autoStart: false } });
    for (let i = 0; i < 4; i++) e.simnet.sealNow();
  }, 60_000);
  afterAll(async () => e.stop());

  const upstreamCalls = async () => (await metrics.upstreamCalls.get()).values.reduce((sum, value) => sum + value.value, 0);

  /** One call: its result, the upstream calls it made and the credits it was charged. */
  async function measured(method: string, params: unknown[]): Promise<{ result: Result; calls: number; charged: number }> {
    const credits = await remaining();
    const before = { calls: await upstreamCalls(), remaining: credits };
    const response = await e.send({ jsonrpc: '2.0', id: ++ids, method, params });
    expect(response.status).toBe(200);
    expect(response.body.error, JSON.stringify(response.body)).toBeUndefined();
    return { result: response.body.result, calls: (await upstreamCalls()) - before.calls, charged: before.remaining - Number(response.headers.get('x-svc-credit-remaining')) };
  }
  /** Credits left now (what a free call reports: the header of sui_getChainIdentifier, minus its own credit). */
  async function remaining(): Promise<number> {
    const response = await e.send({ jsonrpc: '2.0', id: ++ids, method: 'sui_getChainIdentifier' });
    return Number(response.headers.get('x-svc-credit-remaining'));
  }

  const genesisDigest = async (): Promise<string> => (await e.call('sui_getCheckpoint', ['0'])).transactions[0];
  const dex = CATALOG.dexPackage;

  it.each<[string, () => Promise<unknown[]>]>([
    ['sui_getChainIdentifier', async () => []],
    ['sui_getCheckpoint', async () => ['1']],
    ['sui_getNormalizedMoveModulesByPackage', async () => [dex]],
    ['sui_getNormalizedMoveStruct', async () => [dex, 'pool', 'Pool']],
    ['sui_getNormalizedMoveFunction', async () => [dex, 'pool', 'swap_a_to_b']],
    ['sui_getTransactionBlock', async () => [await genesisDigest(), { showInput: true, showEffects: true, showEvents: true, showObjectChanges: true, showBalanceChanges: true }]],
    ['sui_multiGetTransactionBlocks', async () => [[await genesisDigest()], { showEffects: true }]],
    ['sui_getEvents', async () => [await genesisDigest()]],
    ['suix_getCoinMetadata', async () => [COIN_TYPES.USDC]],
  ])('%s: the second identical call makes no upstream call, is charged 1 credit and answers the same', async (method, paramsOf) => {
    const params = await paramsOf();
    // The first call may already be answered from the cache (sui_getChainIdentifier measures the credits).
    await measured(method, params);
    const second = await measured(method, params);
    const third = await measured(method, params);
    expect(third.calls).toBe(0);
    expect(third.charged).toBe(1);
    expect(third.result).toEqual(second.result);
  });

  it('a checkpoint read by its sequence number is then found by its digest, and the other way round', async () => {
    const bySequence = await measured('sui_getCheckpoint', ['2']);
    expect(bySequence.calls).toBe(1);
    const byDigest = await measured('sui_getCheckpoint', [bySequence.result.digest]);
    expect(byDigest).toEqual({ result: bySequence.result, calls: 0, charged: 1 });
  });

  it('a page of checkpoints is one ListCheckpoints call, and none once its checkpoints (and the next one) are cached', async () => {
    // Checkpoints no test read before.
    for (let i = 0; i < 6; i++) e.simnet.sealNow();
    const sequenceNumbers = (page: Result) => page.data.map((c: { sequenceNumber: string }) => BigInt(c.sequenceNumber));
    const firstPage = await measured('sui_getCheckpoints', [null, 2, true]);
    expect(firstPage.calls).toBe(1);
    const [tip] = sequenceNumbers(firstPage.result);
    expect(sequenceNumbers(firstPage.result)).toEqual([tip, tip - 1n]);
    const params = [firstPage.result.nextCursor, 2, true];
    const next = await measured('sui_getCheckpoints', params);
    expect(next.calls).toBe(1);
    expect(sequenceNumbers(next.result)).toEqual([tip - 2n, tip - 3n]);
    expect(next.result.hasNextPage).toBe(true);
    // tip - 2, tip - 3 and tip - 4 (the one after the page) were kept by the last call.
    expect(await measured('sui_getCheckpoints', params)).toEqual({ ...next, calls: 0 });
  });

  it('the package\'s modules and its functions\' argument types come from what was cached before', async () => {
    await measured('sui_getNormalizedMoveModulesByPackage', [dex]);
    expect((await measured('sui_getNormalizedMoveModule', [dex, 'pool'])).calls).toBe(0);
    await measured('sui_getNormalizedMoveFunction', [dex, 'pool', 'swap_a_to_b']);
    const argTypes = await measured('sui_getMoveFunctionArgTypes', [dex, 'pool', 'swap_a_to_b']);
    // The last one is the TxContext, as a node lists it.
    expect(argTypes).toEqual({ result: [{ Object: 'ByMutableReference' }, { Object: 'ByValue' }, 'Pure', { Object: 'ByMutableReference' }], calls: 0, charged: 1 });
  });

  it('coin metadata (mutable) is fetched again once its TTL (SUIGW_JSONRPC_CACHE_MUTABLE_TTL_MS) has passed on the clock', async () => {
    const ttl = e.gateway.config.jsonrpc.cache.mutableTtlMs;
    expect(ttl).toBe(60_000);
    expect((await measured('suix_getCoinMetadata', [COIN_TYPES.WAL])).calls).toBe(1);
    expect((await measured('suix_getCoinMetadata', [COIN_TYPES.WAL])).calls).toBe(0);
    e.gateway.clock.advance(ttl);
    expect((await measured('suix_getCoinMetadata', [COIN_TYPES.WAL])).calls).toBe(1);
  });

  it('a system package (upgraded in place at epoch changes) is fetched again after the TTL; a published package is not', async () => {
    expect((await measured('sui_getNormalizedMoveModule', ['0x2', 'coin'])).calls).toBe(1);
    expect((await measured('sui_getNormalizedMoveModule', [dex, 'pool'])).calls).toBe(0);
    e.gateway.clock.advance(e.gateway.config.jsonrpc.cache.mutableTtlMs);
    expect((await measured('sui_getNormalizedMoveModule', ['0x2', 'coin'])).calls).toBe(1);
    expect((await measured('sui_getNormalizedMoveModule', [dex, 'pool'])).calls).toBe(0);
  });

  it('a transaction outside a checkpoint is not kept: it is read again until it is in one', async () => {
    const sent = await requestSuiFromFaucetV2({ host: e.simnet.faucetHost, recipient: e.address('carol') });
    const digest = sent.coins_sent![0]!.transferTxDigest;
    const params = [digest, { showEffects: true }];
    const pending = await measured('sui_getTransactionBlock', params);
    expect(pending.result.checkpoint).toBeUndefined();
    expect((await measured('sui_getTransactionBlock', params)).calls).toBe(1);
    expect((await measured('sui_getEvents', [digest])).calls).toBe(1);
    expect((await measured('sui_getEvents', [digest])).calls).toBe(1);
    e.simnet.sealNow();
    const sealed = await measured('sui_getTransactionBlock', params);
    expect(sealed.calls).toBe(1);
    expect(sealed.result.checkpoint).toMatch(/^[0-9]+$/);
    expect((await measured('sui_getTransactionBlock', params)).calls).toBe(0);
  });

  it('suix_getAllBalances counts every coin type in one listing: two calls, not one more per coin type', async () => {
    const { result, calls } = await measured('suix_getAllBalances', [e.address('alice')]);
    expect(result.length).toBeGreaterThan(2);
    expect(calls).toBe(2);
    for (const balance of result) {
      const one = await e.call('suix_getBalance', [e.address('alice'), balance.coinType]);
      expect(balance.coinObjectCount).toBe(one.coinObjectCount);
    }
  });

  it('sui_tryMultiGetPastObjects reads the latest versions of all missing ones in one more call', async () => {
    const coins = (await e.call('suix_getCoins', [e.address('alice'), null, null, 3])).data;
    expect(coins).toHaveLength(3);
    const { result, calls } = await measured('sui_tryMultiGetPastObjects', [coins.map((coin: { coinObjectId: string; version: string }) => ({ objectId: coin.coinObjectId, version: String(BigInt(coin.version) + 5n) }))]);
    expect(calls).toBe(2);
    expect(result.map((entry: { status: string }) => entry.status)).toEqual(['VersionTooHigh', 'VersionTooHigh', 'VersionTooHigh']);
  });
});
