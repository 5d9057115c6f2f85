import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { toBase64 } from '@mysten/sui/utils';
import { computeZkLoginAddressFromSeed, getZkLoginSignature } from '@mysten/sui/zklogin';
import { expect } from 'vitest';
import type { ConformanceCase, ConformanceEnv } from '../conformance-case.js';

const SUI = '0x2::sui::SUI';
const ALL_OPTIONS = { showType: true, showOwner: true, showPreviousTransaction: true, showDisplay: true, showContent: true, showBcs: true, showStorageRebate: true };
const U64 = /^(0|[1-9][0-9]*)$/;

async function aliceCoin(env: ConformanceEnv) {
  const page = await env.call('suix_getCoins', [env.address('alice'), SUI, null, 1]);
  return page.data[0] as { coinObjectId: string; version: string; balance: string };
}

async function aliceStake(env: ConformanceEnv): Promise<string> {
  const page = await env.call('suix_getOwnedObjects', [env.address('alice'), { filter: { StructType: '0x3::staking_pool::StakedSui' } }]);
  return page.data[0].data.objectId as string;
}

async function exchangeRatesTable(env: ConformanceEnv): Promise<string> {
  const state = await env.call('suix_getLatestSuiSystemState');
  return state.activeValidators[0].exchangeRatesId as string;
}

/** A zkLogin signature of a personal message, with a well-formed but unchecked proof (simnet does not verify Groth16). */
async function zkLoginPersonalMessage(env: ConformanceEnv) {
  let iss = 'https://issuer.simnet.invalid/';
  while (`"iss":"${iss}",`.length % 3 !== 0) iss += 'x';
  const addressSeed = '424242424242424242424242';
  const address = computeZkLoginAddressFromSeed(BigInt(addressSeed), iss, false);
  const message = new TextEncoder().encode('hello from the gateway');
  const ephemeral = new Ed25519Keypair();
  const { signature: userSignature } = await ephemeral.signPersonalMessage(message);
  const epoch = BigInt((await env.call('suix_getLatestSuiSystemState')).epoch as string);
  const signature = getZkLoginSignature({
    inputs: {
      proofPoints: { a: ['1', '2', '1'], b: [['1', '2'], ['3', '4'], ['1', '0']], c: ['1', '2', '1'] },
      issBase64Details: { value: Buffer.from(`"iss":"${iss}",`).toString('base64url'), indexMod4: 0 },
      headerBase64: 'eyJhbGciOiJSUzI1NiJ9',
      addressSeed,
    },
    maxEpoch: (epoch + 5n).toString(),
    userSignature,
  });
  return { bytes: toBase64(message), signature, address };
}

export const cases: ConformanceCase[] = [
  { method: 'sui_getChainIdentifier', params: () => [], check: (result) => expect(result).toMatch(/^[0-9a-f]{8}$/) },
  { method: 'sui_getLatestCheckpointSequenceNumber', params: () => [], check: (result) => expect(result).toMatch(U64) },
  { method: 'sui_getTotalTransactionBlocks', params: () => [], check: (result) => expect(result).toMatch(U64) },
  { method: 'suix_getReferenceGasPrice', params: () => [], check: (result) => expect(BigInt(result)).toBeGreaterThan(0n) },
  {
    method: 'sui_getProtocolConfig',
    params: () => [],
    check: (result) => expect(result.protocolVersion).toMatch(U64),
  },
  {
    method: 'sui_getCheckpoint',
    params: () => ['1'],
    check: (result) => expect(result.sequenceNumber).toBe('1'),
  },
  {
    method: 'sui_getCheckpoint',
    name: 'by digest',
    params: async (env) => [(await env.call('sui_getCheckpoint', ['2'])).digest],
    check: (result) => expect(result.sequenceNumber).toBe('2'),
  },
  {
    method: 'sui_getCheckpoints',
    name: 'ascending, two pages',
    params: async (env) => [(await env.call('sui_getCheckpoints', [null, 2, false])).nextCursor, 2, false],
    check: (result) => expect(result.data.map((c: { sequenceNumber: string }) => c.sequenceNumber)).toEqual(['2', '3']),
  },
  {
    method: 'sui_getCheckpoints',
    name: 'descending',
    params: () => ({ limit: 3, descending_order: true }),
    check: (result) => {
      const numbers = result.data.map((c: { sequenceNumber: string }) => Number(c.sequenceNumber));
      expect(numbers).toHaveLength(3);
      expect(numbers[0]).toBeGreaterThan(numbers[1]);
      expect(result.hasNextPage).toBe(true);
    },
  },
  {
    method: 'suix_getBalance',
    params: (env) => [env.address('alice')],
    check: (result) => {
      expect(result.coinObjectCount).toBeGreaterThan(0);
      expect(BigInt(result.totalBalance)).toBeGreaterThan(0n);
    },
  },
  {
    method: 'suix_getAllBalances',
    params: (env) => [env.address('alice')],
    check: (result) => expect(result.length).toBeGreaterThan(1),
  },
  {
    method: 'suix_getCoins',
    params: (env) => [env.address('alice'), SUI, null, 2],
    check: (result) => {
      expect(result.data).toHaveLength(2);
      expect(result.data[0].coinType).toMatch(/::sui::SUI$/);
    },
  },
  {
    method: 'suix_getAllCoins',
    params: (env) => [env.address('alice')],
    check: (result) => expect(new Set(result.data.map((coin: { coinType: string }) => coin.coinType)).size).toBeGreaterThan(1),
  },
  { method: 'suix_getCoinMetadata', params: () => [SUI], check: (result) => expect(result).toMatchObject({ decimals: 9, symbol: 'SUI' }) },
  { method: 'suix_getTotalSupply', params: () => [SUI], check: (result) => expect(BigInt(result.value)).toBeGreaterThan(0n) },
  {
    method: 'sui_getObject',
    name: 'every option',
    params: async (env) => [(await aliceCoin(env)).coinObjectId, ALL_OPTIONS],
    check: (result, env) => {
      expect(result.data.owner).toEqual({ AddressOwner: env.address('alice') });
      expect(result.data.content.dataType).toBe('moveObject');
      expect(result.data.bcs.bcsBytes).toEqual(expect.any(String));
    },
  },
  {
    method: 'sui_getObject',
    name: 'no options: id, version and digest only',
    params: async (env) => [(await aliceCoin(env)).coinObjectId],
    check: (result) => expect(Object.keys(result.data).sort()).toEqual(['digest', 'objectId', 'version']),
  },
  {
    method: 'sui_getObject',
    name: 'a package',
    params: () => ['0x2', { showType: true, showContent: true, showBcs: true }],
    check: (result) => {
      expect(result.data.type).toBe('package');
      expect(Object.keys(result.data.bcs.moduleMap)).toContain('coin');
    },
  },
  {
    method: 'sui_getObject',
    name: 'missing',
    params: () => ['0x0000000000000000000000000000000000000000000000000000000000abcdef'],
    check: (result) => expect(result.error.code).toBe('notExists'),
  },
  {
    method: 'sui_multiGetObjects',
    params: async (env) => [[(await aliceCoin(env)).coinObjectId, '0x5'], { showType: true }],
    check: (result) => {
      expect(result[0].data.type).toMatch(/::coin::Coin</);
      expect(result[1].error.code).toBe('notExists');
    },
  },
  {
    method: 'sui_tryGetPastObject',
    params: async (env) => { const coin = await aliceCoin(env); return [coin.coinObjectId, Number(coin.version), { showType: true }]; },
    check: (result) => expect(result.status).toBe('VersionFound'),
  },
  {
    method: 'sui_tryGetPastObject',
    name: 'version too high',
    params: async (env) => [(await aliceCoin(env)).coinObjectId, 999_999],
    check: (result) => expect(result.status).toBe('VersionTooHigh'),
  },
  {
    method: 'sui_tryMultiGetPastObjects',
    params: async (env) => {
      const coin = await aliceCoin(env);
      return [[{ objectId: coin.coinObjectId, version: coin.version }, { objectId: '0x5', version: '1' }]];
    },
    check: (result) => expect(result.map((entry: { status: string }) => entry.status)).toEqual(['VersionFound', 'ObjectNotExists']),
  },
  {
    method: 'suix_getOwnedObjects',
    params: (env) => [env.address('alice'), { options: ALL_OPTIONS }, null, 3],
    check: (result) => {
      expect(result.data).toHaveLength(3);
      expect(result.hasNextPage).toBe(true);
    },
  },
  {
    method: 'suix_getOwnedObjects',
    name: 'MoveModule filter',
    params: (env) => [env.address('alice'), { filter: { MoveModule: { package: '0x3', module: 'staking_pool' } }, options: { showType: true } }],
    check: (result) => {
      expect(result.data.length).toBeGreaterThan(0);
      for (const entry of result.data) expect(entry.data.type).toMatch(/::staking_pool::/);
    },
  },
  {
    method: 'suix_getDynamicFields',
    params: async (env) => [await exchangeRatesTable(env), null, 2],
    check: (result) => {
      expect(result.data[0]).toMatchObject({ type: 'DynamicField', name: { type: 'u64' } });
    },
  },
  {
    method: 'suix_getDynamicFieldObject',
    params: async (env) => {
      const table = await exchangeRatesTable(env);
      const first = (await env.call('suix_getDynamicFields', [table, null, 1])).data[0];
      return [table, first.name];
    },
    check: (result) => expect(result.data.type).toMatch(/::dynamic_field::Field<u64,/),
  },
  {
    method: 'sui_getNormalizedMoveModulesByPackage',
    params: () => ['0x2'],
    check: (result) => expect(result.coin.exposedFunctions.value).toBeDefined(),
  },
  {
    method: 'sui_getNormalizedMoveModule',
    params: () => ['0x2', 'coin'],
    check: (result) => expect(result.structs.Coin.abilities.abilities).toEqual(['Store', 'Key']),
  },
  {
    method: 'sui_getNormalizedMoveStruct',
    params: () => ['0x2', 'coin', 'Coin'],
    check: (result) => expect(result.fields.map((field: { name: string }) => field.name)).toEqual(['id', 'balance']),
  },
  {
    method: 'sui_getNormalizedMoveFunction',
    params: () => ['0x2', 'coin', 'value'],
    check: (result) => expect(result).toMatchObject({ visibility: 'Public', isEntry: false, return: ['U64'] }),
  },
  {
    method: 'sui_getMoveFunctionArgTypes',
    params: () => ['0x2', 'coin', 'value'],
    check: (result) => expect(result).toEqual([{ Object: 'ByImmutableReference' }]),
  },
  {
    method: 'suix_getLatestSuiSystemState',
    params: () => [],
    check: (result) => expect(result.activeValidators.length).toBeGreaterThan(0),
  },
  {
    method: 'suix_getCommitteeInfo',
    params: () => [],
    check: (result) => expect(result.validators.length).toBeGreaterThan(0),
  },
  {
    method: 'suix_getValidatorsApy',
    params: () => [],
    check: (result) => {
      expect(result.apys.length).toBeGreaterThan(0);
      expect(result.apys.some((entry: { apy: number }) => entry.apy > 0)).toBe(true);
    },
  },
  {
    method: 'suix_getStakes',
    params: (env) => [env.address('alice')],
    check: (result) => {
      expect(result.length).toBeGreaterThan(0);
      expect(result[0].stakes[0].principal).toMatch(U64);
    },
  },
  {
    method: 'suix_getStakesByIds',
    params: async (env) => [[await aliceStake(env)]],
    check: async (result, env) => expect(result[0].stakes[0].stakedSuiId).toBe(await aliceStake(env)),
  },
  {
    method: 'suix_resolveNameServiceAddress',
    params: () => ['alice.sui'],
    check: (result, env) => expect(result).toBe(env.address('alice')),
  },
  {
    method: 'suix_resolveNameServiceAddress',
    name: 'unregistered',
    params: () => ['nobody-here.sui'],
    check: (result) => expect(result).toBeNull(),
  },
  {
    method: 'suix_resolveNameServiceNames',
    params: (env) => [env.address('alice')],
    check: (result) => expect(result.data).toEqual(['alice.sui']),
  },
  {
    method: 'sui_verifyZkLoginSignature',
    params: async (env) => {
      const signed = await zkLoginPersonalMessage(env);
      return [signed.bytes, signed.signature, 'PersonalMessage', signed.address];
    },
    check: (result) => expect(result).toEqual({ success: true, errors: [] }),
  },
  {
    method: 'sui_verifyZkLoginSignature',
    name: 'another author',
    params: async (env) => {
      const signed = await zkLoginPersonalMessage(env);
      return [signed.bytes, signed.signature, 'PersonalMessage', env.address('bob')];
    },
    check: (result) => expect(result.success).toBe(false),
  },
];
