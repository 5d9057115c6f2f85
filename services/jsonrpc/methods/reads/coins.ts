import type { GrpcTypes } from '@mysten/sui/grpc';
import { normalizeStructTag, normalizeSuiAddress } from '@mysten/sui/utils';
import type { JsonRpcContext, JsonRpcMethod } from '../../method.js';
import { invalidParams } from '../../params.js';
import { structTypeParam } from '../../struct-type.js';
import { legacyType } from '../transactions/legacy-values.js';
import { pageLimit, pageOf, type PageState } from './paging.js';
import { mask, read, readOptional, u64 } from './upstream-reads.js';

/** Balances, coins, coin metadata and supply (gRPC StateService). */

const SUI = '0x2::sui::SUI';
const COIN_FIELDS = ['object_id', 'version', 'digest', 'object_type', 'previous_transaction', 'balance'];
/** Coins are counted a page of this many at a time (the upstream's largest page). */
const COUNT_PAGE = 1000;

/** The coin type param (SUI when absent), refused as a node refuses it (-32602, its message) when it is no struct type. */
function coinTypeOf(param: unknown): string {
  return structTypeParam(typeof param === 'string' ? param : SUI);
}

function owner(param: unknown): string {
  return normalizeSuiAddress(String(param));
}

/** `0x2::coin::Coin<T>` → `T`. */
function innerType(objectType: string | undefined): string {
  const match = /^0x0*2::coin::Coin<(.+)>$/.exec(objectType ?? '');
  return match?.[1] ?? '';
}

function toCoin(object: GrpcTypes.Object) {
  return {
    coinType: legacyType(innerType(object.objectType)),
    coinObjectId: object.objectId ?? '',
    version: u64(object.version),
    digest: object.digest ?? '',
    balance: u64(object.balance),
    previousTransaction: object.previousTransaction ?? '',
  };
}

/** Every page of the owner's coins of `objectType` (`0x2::coin::Coin<T>`, or `0x2::coin::Coin` for every T), `field` read. */
async function eachCoinPage(context: JsonRpcContext, address: string, objectType: string, field: string, visit: (coins: GrpcTypes.Object[]) => void): Promise<void> {
  let pageToken: Uint8Array | undefined;
  do {
    const page = await read(context, 'ListOwnedObjects', (options) => context.upstream.grpc.stateService.listOwnedObjects({
      owner: address, objectType, pageSize: COUNT_PAGE, ...(pageToken ? { pageToken } : {}), ...mask(field),
    }, options));
    visit(page.objects);
    pageToken = page.nextPageToken;
  } while (pageToken !== undefined && pageToken.length > 0);
}

/** How many `Coin<coinType>` objects `address` owns (the legacy `coinObjectCount`). */
async function countCoins(context: JsonRpcContext, address: string, coinType: string): Promise<number> {
  let count = 0;
  await eachCoinPage(context, address, `0x2::coin::Coin<${coinType}>`, 'object_id', (coins) => { count += coins.length; });
  return count;
}

/** How many coins of each type `address` owns, keyed by the inner type as v2 writes it. */
async function countCoinsByType(context: JsonRpcContext, address: string): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  await eachCoinPage(context, address, '0x2::coin::Coin', 'object_type', (coins) => {
    for (const coin of coins) {
      const type = innerType(coin.objectType);
      if (type !== '') counts.set(type, (counts.get(type) ?? 0) + 1);
    }
  });
  return counts;
}

/** The counts keyed by normalized coin type (each distinct type normalized once). */
function byNormalizedType(counts: ReadonlyMap<string, number>): Map<string, number> {
  const normalized = new Map<string, number>();
  for (const [type, count] of counts) {
    const key = normalizeStructTag(type);
    normalized.set(key, (normalized.get(key) ?? 0) + count);
  }
  return normalized;
}

function toLegacyBalance(balance: GrpcTypes.Balance | undefined, coinType: string, coinObjectCount: number) {
  return {
    coinType: legacyType(coinType),
    coinObjectCount,
    totalBalance: u64(balance?.balance),
    lockedBalance: {},
    fundsInAddressBalance: u64(balance?.addressBalance),
  };
}

export const getBalance: JsonRpcMethod = {
  name: 'suix_getBalance',
  translatesTo: 'gRPC StateService.GetBalance + ListOwnedObjects (Coin<T>, for coinObjectCount: v2 has no coin count)',
  unfilled: ['lockedBalance: always {} (time-locked balances no longer exist)'],
  async handle(params, context) {
    const address = owner(params.owner);
    const coinType = coinTypeOf(params.coin_type);
    // The two reads are independent: both in flight at once, the answer waits for the slower.
    const counting = countCoins(context, address, coinType);
    counting.catch(() => undefined);
    const response = await read(context, 'GetBalance', (options) => context.upstream.grpc.stateService.getBalance({ owner: address, coinType }, options));
    return toLegacyBalance(response.balance, coinType, await counting);
  },
};

async function listBalances(context: JsonRpcContext, address: string): Promise<GrpcTypes.Balance[]> {
  const balances: GrpcTypes.Balance[] = [];
  let pageToken: Uint8Array | undefined;
  do {
    const page = await read(context, 'ListBalances', (options) => context.upstream.grpc.stateService.listBalances({
      owner: address, pageSize: COUNT_PAGE, ...(pageToken ? { pageToken } : {}),
    }, options));
    balances.push(...page.balances);
    pageToken = page.nextPageToken;
  } while (pageToken !== undefined && pageToken.length > 0);
  return balances;
}

export const getAllBalances: JsonRpcMethod = {
  name: 'suix_getAllBalances',
  translatesTo: 'gRPC StateService.ListBalances (all pages) + ListOwnedObjects of every Coin<T> (all pages; coinObjectCount per type), in parallel',
  unfilled: ['lockedBalance: always {}'],
  async handle(params, context) {
    const address = owner(params.owner);
    // One listing of every coin counts all types at once: no call per coin type.
    const counting = countCoinsByType(context, address);
    counting.catch(() => undefined);
    const balances = await listBalances(context, address);
    const counts = byNormalizedType(await counting);
    return balances.map((balance) => {
      const coinType = normalizeStructTag(balance.coinType ?? SUI);
      return toLegacyBalance(balance, coinType, counts.get(coinType) ?? 0);
    });
  },
};

interface CoinsCursor extends PageState {
  owner: string;
  coinType: string | null;
}

async function coinsPage(context: JsonRpcContext, method: string, address: string, coinType: string | null, cursor: unknown, limit: unknown) {
  const state = context.cursors.decodeParam<CoinsCursor>(method, cursor);
  if (state && (state.owner !== address || state.coinType !== coinType)) throw invalidParams('the cursor belongs to another query', { code: 'INVALID_CURSOR' });
  const page = await read(context, 'ListOwnedObjects', (options) => context.upstream.grpc.stateService.listOwnedObjects({
    owner: address,
    objectType: coinType ? `0x2::coin::Coin<${coinType}>` : '0x2::coin::Coin',
    pageSize: pageLimit(limit),
    ...(state ? { pageToken: Buffer.from(state.token, 'base64') } : {}),
    ...mask(...COIN_FIELDS),
  }, options));
  return pageOf(context, method, page.objects.map(toCoin), page.nextPageToken, { owner: address, coinType });
}

export const getCoins: JsonRpcMethod = {
  name: 'suix_getCoins',
  translatesTo: 'gRPC StateService.ListOwnedObjects (type Coin<T>, default SUI)',
  async handle(params, context) {
    const address = owner(params.owner);
    return coinsPage(context, 'suix_getCoins', address, coinTypeOf(params.coin_type), params.cursor, params.limit);
  },
};

export const getAllCoins: JsonRpcMethod = {
  name: 'suix_getAllCoins',
  translatesTo: 'gRPC StateService.ListOwnedObjects (type 0x2::coin::Coin, every T)',
  async handle(params, context) {
    const address = owner(params.owner);
    return coinsPage(context, 'suix_getAllCoins', address, null, params.cursor, params.limit);
  },
};

export const getCoinMetadata: JsonRpcMethod = {
  name: 'suix_getCoinMetadata',
  translatesTo: 'gRPC StateService.GetCoinInfo (metadata; cached for SUIGW_JSONRPC_CACHE_MUTABLE_TTL_MS)',
  async handle(params, context) {
    const coinType = coinTypeOf(params.coin_type);
    return context.cache.read('coin-metadata', coinType, async () => {
      const info = await readOptional(context, 'GetCoinInfo', (options) => context.upstream.grpc.stateService.getCoinInfo({ coinType }, options));
      const metadata = info?.metadata;
      // A node answers null for a coin type without metadata.
      if (!metadata) return null;
      return {
        id: metadata.id ?? null,
        decimals: metadata.decimals ?? 0,
        name: metadata.name ?? '',
        symbol: metadata.symbol ?? '',
        description: metadata.description ?? '',
        iconUrl: metadata.iconUrl ?? null,
      };
    });
  },
};

export const getTotalSupply: JsonRpcMethod = {
  name: 'suix_getTotalSupply',
  translatesTo: 'gRPC StateService.GetCoinInfo (treasury.total_supply)',
  async handle(params, context) {
    const coinType = coinTypeOf(params.coin_type);
    const info = await readOptional(context, 'GetCoinInfo', (options) => context.upstream.grpc.stateService.getCoinInfo({ coinType }, options));
    if (info?.treasury?.totalSupply === undefined) throw invalidParams(`no supply is known for ${coinType}`, { code: 'NOT_FOUND' });
    return { value: u64(info.treasury.totalSupply) };
  },
};
