import { normalizeSuiAddress } from '@mysten/sui/utils';
import { ApiError } from '../../core/errors.js';
import type { Account, Balance, Delegation, ObjectResponse } from '../schemas.js';
import type { ChainService } from './chain.js';
import type { CoinService } from './coins.js';
import type { NetworkContext } from './context.js';
import type { CursorCodec } from '../../core/cursor.js';
import { toBalance } from './map-balance.js';
import { toSuiObject } from './map-object.js';
import { fullAddress, fullType, valueToJson, type ProtoValue } from './proto-values.js';
import type { Page } from './transactions.js';
import { ask, askGraphQL, fieldMask } from './upstream-calls.js';

const SUI = fullType('0x2::sui::SUI');
const STAKED_SUI = fullType('0x3::staking_pool::StakedSui');
export const OBJECT_READ_MASK = ['object_id', 'version', 'digest', 'owner', 'object_type', 'storage_rebate', 'previous_transaction', 'json'];
/** Owned objects counted for `objectCount` at most; beyond it the field is left out rather than wrong. */
const OBJECT_COUNT_CAP = 5_000;
const TX_COUNT_PAGE = 50;

interface ActivityBounds {
  first: { nodes: { effects: { timestamp: string | null } | null }[]; pageInfo: { hasNextPage: boolean } } | null;
  last: { nodes: { effects: { timestamp: string | null } | null }[] } | null;
}

const ACTIVITY_BOUNDS = `query ActivityBounds($filter: TransactionFilter, $first: Int) {
  first: transactions(first: $first, filter: $filter) { nodes { effects { timestamp } } pageInfo { hasNextPage } }
  last: transactions(last: 1, filter: $filter) { nodes { effects { timestamp } } }
}`;

export class AccountService {
  readonly #coins: CoinService;
  readonly #chain: ChainService;
  readonly #cursors: CursorCodec;

  constructor(deps: { coins: CoinService; chain: ChainService; cursors: CursorCodec }) {
    this.#coins = deps.coins;
    this.#chain = deps.chain;
    this.#cursors = deps.cursors;
  }

  /**
   * The account summary. An account is unknown (404) when the chain knows nothing of it: no
   * balance of any coin, no owned object and no transaction that sent from or affected it.
   */
  async account(ctx: NetworkContext, address: string): Promise<Account> {
    const owner = normalizeSuiAddress(address);
    const [balance, objectCount, activity] = await Promise.all([
      ask(ctx.upstream, 'GetBalance', (o) => ctx.upstream.grpc.stateService.getBalance({ owner, coinType: SUI }, o)),
      this.#countObjects(ctx, owner),
      askGraphQL<ActivityBounds>(ctx.upstream, 'activityBounds', ACTIVITY_BOUNDS, { filter: { affectedAddress: owner }, first: TX_COUNT_PAGE }),
    ]);
    const firstNodes = activity.first?.nodes ?? [];
    const total = balance.balance?.balance ?? 0n;
    if (total === 0n && objectCount === 0 && firstNodes.length === 0) {
      if (!(await this.#hasAnyBalance(ctx, owner))) throw new ApiError('ACCOUNT_NOT_FOUND');
    }
    const account: Account = { address: owner, balance: total.toString() };
    const usd = await this.#coins.usdValue(ctx, SUI, total);
    if (usd !== undefined) account.usdValue = usd;
    if (!activity.first?.pageInfo.hasNextPage) account.transactionCount = firstNodes.length;
    if (objectCount !== undefined) account.objectCount = objectCount;
    const first = firstNodes[0]?.effects?.timestamp;
    const last = activity.last?.nodes[0]?.effects?.timestamp;
    if (first) account.firstActivity = first;
    if (last) account.lastActivity = last;
    return account;
  }

  /** Every coin balance; 404 only when the account is unknown (see `account`). */
  async balances(ctx: NetworkContext, address: string): Promise<Balance[]> {
    const owner = normalizeSuiAddress(address);
    const balances = [];
    let pageToken: Uint8Array | undefined;
    do {
      const response = await ask(ctx.upstream, 'ListBalances', (o) => ctx.upstream.grpc.stateService.listBalances({ owner, pageSize: 1000, pageToken }, o));
      balances.push(...response.balances);
      pageToken = response.nextPageToken?.length ? response.nextPageToken : undefined;
    } while (pageToken && balances.length < 10_000);
    if (balances.length === 0 && !(await this.#isKnownWithoutBalance(ctx, owner))) throw new ApiError('ACCOUNT_NOT_FOUND');
    // Metadata is nearly always kept: then no promise per coin type.
    const known = balances.map((b) => this.#coins.known(ctx.network, b.coinType ?? ''));
    const infos = known.includes(undefined)
      ? await Promise.all(balances.map((b, i) => known[i] === undefined ? this.#coins.info(ctx, b.coinType ?? '') : known[i]))
      : known;
    return balances.map((b, i) => toBalance(b, infos[i] ?? undefined));
  }

  async objects(ctx: NetworkContext, address: string, limit: number, cursor: string | undefined): Promise<Page<ObjectResponse>> {
    const owner = normalizeSuiAddress(address);
    const scope = { kind: 'account-objects', network: ctx.network, query: owner };
    const position = cursor ? this.#cursors.decode(scope, cursor) : undefined;
    const response = await ask(ctx.upstream, 'ListOwnedObjects', (o) => ctx.upstream.grpc.stateService.listOwnedObjects({
      owner, pageSize: limit, pageToken: position ? Buffer.from(position, 'base64') : undefined, readMask: fieldMask(OBJECT_READ_MASK),
    }, o));
    const next = response.nextPageToken?.length ? Buffer.from(response.nextPageToken).toString('base64') : undefined;
    return {
      items: response.objects.map((object) => ({ data: toSuiObject(object, true) })),
      hasNext: next !== undefined,
      ...(next ? { cursor: this.#cursors.encode(scope, next) } : {}),
    };
  }

  /** The account's StakedSui objects, each tied to its validator through the staking pool id. */
  async delegations(ctx: NetworkContext, address: string): Promise<{ items: Delegation[]; summary: { totalStakes: number; totalStaked: string } }> {
    const owner = normalizeSuiAddress(address);
    const [state, objects] = await Promise.all([this.#chain.systemState(ctx), this.#stakedSui(ctx, owner)]);
    const epoch = state.epoch ?? 0n;
    const validatorByPool = new Map((state.validators?.activeValidators ?? []).map((v) => [fullAddress(v.stakingPool?.id), fullAddress(v.address)]));
    const items: Delegation[] = [];
    let totalStaked = 0n;
    for (const object of objects) {
      const json = valueToJson(object.json as ProtoValue | undefined) as { pool_id?: string; stake_activation_epoch?: string; principal?: string | { value?: string } } | null;
      if (!json) continue;
      const principal = BigInt(typeof json.principal === 'object' ? json.principal?.value ?? '0' : json.principal ?? '0');
      const activation = BigInt(json.stake_activation_epoch ?? '0');
      const poolId = fullAddress(json.pool_id);
      totalStaked += principal;
      items.push({
        stakedSuiId: fullAddress(object.objectId),
        validatorAddress: validatorByPool.get(poolId) ?? null,
        poolId,
        principal: principal.toString(),
        stakeActivationEpoch: activation.toString(),
        status: activation > epoch ? 'Pending' : 'Active',
      });
    }
    return { items, summary: { totalStakes: items.length, totalStaked: totalStaked.toString() } };
  }

  async #stakedSui(ctx: NetworkContext, owner: string) {
    const objects = [];
    let pageToken: Uint8Array | undefined;
    do {
      const response = await ask(ctx.upstream, 'ListOwnedObjects', (o) => ctx.upstream.grpc.stateService.listOwnedObjects({
        owner, objectType: STAKED_SUI, pageSize: 1000, pageToken, readMask: fieldMask(['object_id', 'object_type', 'json']),
      }, o));
      objects.push(...response.objects.filter((obj) => fullType(obj.objectType) === STAKED_SUI));
      pageToken = response.nextPageToken?.length ? response.nextPageToken : undefined;
    } while (pageToken && objects.length < 10_000);
    return objects;
  }

  async #countObjects(ctx: NetworkContext, owner: string): Promise<number | undefined> {
    let count = 0;
    let pageToken: Uint8Array | undefined;
    do {
      const response = await ask(ctx.upstream, 'ListOwnedObjects', (o) => ctx.upstream.grpc.stateService.listOwnedObjects({
        owner, pageSize: 1000, pageToken, readMask: fieldMask(['object_id']),
      }, o));
      count += response.objects.length;
      pageToken = response.nextPageToken?.length ? response.nextPageToken : undefined;
      if (pageToken && count >= OBJECT_COUNT_CAP) return undefined;
    } while (pageToken);
    return count;
  }

  async #hasAnyBalance(ctx: NetworkContext, owner: string): Promise<boolean> {
    const response = await ask(ctx.upstream, 'ListBalances', (o) => ctx.upstream.grpc.stateService.listBalances({ owner, pageSize: 1 }, o));
    return response.balances.some((b) => (b.balance ?? 0n) > 0n);
  }

  /** For an address without balances: does it own objects or appear in any transaction? */
  async #isKnownWithoutBalance(ctx: NetworkContext, owner: string): Promise<boolean> {
    const [objects, txs] = await Promise.all([
      ask(ctx.upstream, 'ListOwnedObjects', (o) => ctx.upstream.grpc.stateService.listOwnedObjects({ owner, pageSize: 1, readMask: fieldMask(['object_id']) }, o)),
      askGraphQL<{ transactions: { nodes: unknown[] } | null }>(ctx.upstream, 'anyTransaction',
        'query AnyTx($filter: TransactionFilter) { transactions(first: 1, filter: $filter) { nodes { digest } } }', { filter: { affectedAddress: owner } }),
    ]);
    return objects.objects.length > 0 || (txs.transactions?.nodes.length ?? 0) > 0;
  }
}
