import { fromBase64, toBase64 } from '@mysten/sui/utils';
import { Transaction } from '@mysten/sui/transactions';
import { expect } from 'vitest';
import type { ConformanceCase, ConformanceEnv } from '../conformance-case.js';

/** Conformance cases of the transaction, event, execution and builder methods (the subscriptions are WebSocket-only: subscriptions.websocket.test.ts). */

const ALL_OPTIONS = {
  showInput: true, showRawInput: true, showEffects: true, showEvents: true, showObjectChanges: true, showBalanceChanges: true, showRawEffects: true,
};
const BUDGET = '10000000';

async function coins(env: ConformanceEnv, label: string): Promise<string[]> {
  const page = await env.call('suix_getCoins', [env.address(label), '0x2::sui::SUI', null, 10]);
  return (page.data as { coinObjectId: string }[]).map((coin) => coin.coinObjectId);
}

/** A transfer carol → dave executed through the gateway (once per run), for the reads to find. */
let executed: Promise<string> | undefined;
function executedDigest(env: ConformanceEnv): Promise<string> {
  executed ??= (async () => {
    const [coin] = await coins(env, 'carol');
    const built = await env.call('unsafe_paySui', [env.address('carol'), [coin], [env.address('dave')], ['77'], BUDGET]);
    const keypair = env.e2e.simnet.accounts.find((account) => account.label === 'carol')!.keypair;
    const { signature } = await keypair.signTransaction(fromBase64(built.txBytes));
    const result = await env.call('sui_executeTransactionBlock', [built.txBytes, [signature], {}, 'WaitForLocalExecution']);
    env.e2e.simnet.seal();
    await env.call('sui_getTransactionBlock', [result.digest]).catch(() => undefined);
    return result.digest as string;
  })();
  return executed;
}

async function signedTransfer(env: ConformanceEnv): Promise<[string, string[]]> {
  const [coin] = await coins(env, 'erin');
  const built = await env.call('unsafe_paySui', [env.address('erin'), [coin], [env.address('frank')], ['5'], BUDGET]);
  const keypair = env.e2e.simnet.accounts.find((account) => account.label === 'erin')!.keypair;
  const { signature } = await keypair.signTransaction(fromBase64(built.txBytes));
  return [built.txBytes, [signature]];
}

const builder = (method: string, params: (env: ConformanceEnv, coins: string[]) => unknown[] | Promise<unknown[]>): ConformanceCase => ({
  method,
  params: async (env) => params(env, await coins(env, 'grace')),
  check: (result) => {
    expect(result.txBytes.length).toBeGreaterThan(0);
    expect(result.gas.length).toBeGreaterThan(0);
  },
});

export const cases: ConformanceCase[] = [
  {
    method: 'sui_getTransactionBlock',
    name: 'every options flag',
    params: async (env) => [await executedDigest(env), ALL_OPTIONS],
    check: (result, env) => {
      expect(result.transaction.data.sender).toBe(env.address('carol'));
      expect(result.balanceChanges).toContainEqual({ owner: { AddressOwner: env.address('dave') }, coinType: '0x2::sui::SUI', amount: '77' });
    },
  },
  { method: 'sui_multiGetTransactionBlocks', params: async (env) => [[await executedDigest(env)], { showEffects: true, showEvents: true }] },
  {
    method: 'suix_queryTransactionBlocks',
    params: async (env) => [{ filter: { FromAddress: env.address('carol') }, options: { showEffects: true } }, null, 5, false],
    check: async (result, env) => expect(result.data.map((tx: { digest: string }) => tx.digest)).toContain(await executedDigest(env)),
  },
  { method: 'sui_getEvents', params: async (env) => [await executedDigest(env)] },
  { method: 'suix_queryEvents', name: 'All', params: () => [{ All: [] }, null, 5, false] },
  { method: 'suix_queryEvents', name: 'Transaction', params: async (env) => [{ Transaction: await executedDigest(env) }, null, 5, true] },
  {
    method: 'sui_executeTransactionBlock',
    params: async (env) => [...await signedTransfer(env), ALL_OPTIONS, 'WaitForLocalExecution'],
    check: (result) => {
      expect(result.effects.status).toEqual({ status: 'success' });
      expect(result.confirmedLocalExecution).toBe(true);
    },
  },
  {
    method: 'sui_dryRunTransactionBlock',
    params: async (env) => [(await signedTransfer(env))[0]],
    check: (result) => expect(result.effects.status).toEqual({ status: 'success' }),
  },
  {
    method: 'sui_devInspectTransactionBlock',
    params: async (env) => {
      const kind = new Transaction();
      kind.transferObjects([kind.splitCoins(kind.gas, [3])[0]!], env.address('heidi'));
      return [env.address('grace'), toBase64(await kind.build({ onlyTransactionKind: true }))];
    },
    check: (result) => expect(result.effects.status).toEqual({ status: 'success' }),
  },
  builder('unsafe_transferObject', (env, [a]) => [env.address('grace'), a, null, BUDGET, env.address('heidi')]),
  builder('unsafe_transferSui', (env, [a]) => [env.address('grace'), a, BUDGET, env.address('heidi'), '10']),
  builder('unsafe_pay', (env, [a]) => [env.address('grace'), [a], [env.address('heidi')], ['10'], null, BUDGET]),
  builder('unsafe_paySui', (env, [a, b]) => [env.address('grace'), [a, b], [env.address('heidi')], ['10'], BUDGET]),
  builder('unsafe_payAllSui', (env, [a]) => [env.address('grace'), [a], env.address('heidi'), BUDGET]),
  builder('unsafe_splitCoin', (env, [a]) => [env.address('grace'), a, ['1', '2'], null, BUDGET]),
  builder('unsafe_splitCoinEqual', (env, [a]) => [env.address('grace'), a, '2', null, BUDGET]),
  builder('unsafe_mergeCoins', (env, [a, b, c]) => [env.address('grace'), a, b, c, BUDGET]),
  builder('unsafe_moveCall', (env, [a]) => [env.address('grace'), '0x2', 'pay', 'split', ['0x2::sui::SUI'], [a, '5'], null, BUDGET]),
  builder('unsafe_publish', (env) => [env.address('grace'), [toBase64(new Uint8Array([0xa1, 0x1c, 0xeb, 0x0b]))], ['0x1', '0x2'], null, BUDGET]),
  builder('unsafe_requestAddStake', async (env, [a]) => {
    const state = await env.call('suix_getLatestSuiSystemState');
    return [env.address('grace'), [a], '1000000000', state.activeValidators[0].suiAddress, null, BUDGET];
  }),
  builder('unsafe_requestWithdrawStake', async (env) => {
    const page = await env.call('suix_getOwnedObjects', [env.address('alice'), { filter: { StructType: '0x3::staking_pool::StakedSui' } }]);
    return [env.address('alice'), page.data[0].data.objectId, null, BUDGET];
  }),
  builder('unsafe_batchTransaction', (env, [a]) => [env.address('grace'), [{ transferObjectRequestParams: { objectId: a, recipient: env.address('heidi') } }], null, BUDGET]),
];
