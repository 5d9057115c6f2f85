import { bcs } from '@mysten/sui/bcs';
import type { GrpcTypes } from '@mysten/sui/grpc';
import { deriveDynamicFieldID, normalizeSuiAddress, normalizeSuiObjectId } from '@mysten/sui/utils';
import { exchangeRateFromField, fullAddress, valueToJson, type ExchangeRate, type ProtoValue } from '../../../upstream/index.js';
import type { JsonRpcContext, JsonRpcMethod } from '../../method.js';
import { invalidParams } from '../../params.js';
import { systemState } from './system.js';
import { read } from './upstream-reads.js';

/** Delegated stakes: StakedSui objects grouped by validator, rewards from the pools' exchange rates. */

const STAKED_SUI = '0x3::staking_pool::StakedSui';
const MAX_STAKES = 50;

interface StakedSui {
  id: string;
  poolId: string;
  activationEpoch: bigint;
  requestEpoch: bigint;
  principal: bigint;
}

function stakedSuiOf(object: GrpcTypes.Object): StakedSui | undefined {
  const json = valueToJson(object.json as ProtoValue | undefined) as { pool_id?: string; stake_activation_epoch?: string; principal?: { value?: string } | string } | null;
  if (!json?.pool_id || json.stake_activation_epoch === undefined) return undefined;
  const principal = typeof json.principal === 'object' ? json.principal.value : json.principal;
  const activationEpoch = BigInt(json.stake_activation_epoch);
  return {
    id: object.objectId ?? '',
    poolId: fullAddress(json.pool_id),
    activationEpoch,
    // A stake is requested the epoch before it activates.
    requestEpoch: activationEpoch > 0n ? activationEpoch - 1n : 0n,
    principal: BigInt(principal ?? '0'),
  };
}

/** The pool's exchange rates at the given epochs (table entries at their derived ids). */
async function ratesAt(context: JsonRpcContext, wanted: { table: string; epoch: bigint }[]): Promise<Map<string, ExchangeRate>> {
  const keyOf = (table: string, epoch: bigint) => `${table}:${epoch}`;
  const unique = [...new Map(wanted.map((w) => [keyOf(w.table, w.epoch), w])).values()];
  const rates = new Map<string, ExchangeRate>();
  for (let i = 0; i < unique.length; i += 50) {
    const chunk = unique.slice(i, i + 50);
    const response = await read(context, 'BatchGetObjects', (rpc) => context.upstream.grpc.ledgerService.batchGetObjects({
      requests: chunk.map((w) => ({ objectId: deriveDynamicFieldID(w.table, 'u64', bcs.u64().serialize(w.epoch).toBytes()) })),
      readMask: { paths: ['object_id', 'json'] },
    }, rpc));
    response.objects.forEach((entry, index) => {
      const rate = entry.result.oneofKind === 'object' ? exchangeRateFromField(entry.result.object) : undefined;
      const w = chunk[index];
      if (rate && w) rates.set(keyOf(w.table, w.epoch), rate);
    });
  }
  return rates;
}

/** principal → pool tokens at the activation rate → SUI at the current rate; the gain (never negative). */
function estimatedReward(principal: bigint, atActivation: ExchangeRate | undefined, now: ExchangeRate | undefined): bigint {
  if (!atActivation || !now || atActivation.suiAmount === 0n || now.poolTokenAmount === 0n) return 0n;
  const tokens = (principal * atActivation.poolTokenAmount) / atActivation.suiAmount;
  const value = (tokens * now.suiAmount) / now.poolTokenAmount;
  return value > principal ? value - principal : 0n;
}

async function delegatedStakes(context: JsonRpcContext, stakes: StakedSui[]) {
  const state = await systemState(context);
  const epoch = state.epoch ?? 0n;
  const validators = new Map((state.validators?.activeValidators ?? []).map((v) => [fullAddress(v.stakingPool?.id), v]));
  const wanted = stakes.flatMap((stake) => {
    const table = validators.get(stake.poolId)?.stakingPool?.exchangeRates?.id;
    return table ? [{ table, epoch: stake.activationEpoch }, { table, epoch }] : [];
  });
  const rates = await ratesAt(context, wanted);
  const byPool = new Map<string, { validatorAddress: string; stakingPool: string; stakes: unknown[] }>();
  for (const stake of stakes) {
    const validator = validators.get(stake.poolId);
    const table = validator?.stakingPool?.exchangeRates?.id;
    const group = byPool.get(stake.poolId) ?? { validatorAddress: validator ? fullAddress(validator.address) : normalizeSuiAddress('0x0'), stakingPool: stake.poolId, stakes: [] };
    byPool.set(stake.poolId, group);
    const base = { stakedSuiId: stake.id, stakeRequestEpoch: String(stake.requestEpoch), stakeActiveEpoch: String(stake.activationEpoch), principal: String(stake.principal) };
    if (stake.activationEpoch > epoch) {
      group.stakes.push({ ...base, status: 'Pending' });
    } else {
      const reward = table ? estimatedReward(stake.principal, rates.get(`${table}:${stake.activationEpoch}`), rates.get(`${table}:${epoch}`)) : 0n;
      group.stakes.push({ ...base, status: 'Active', estimatedReward: String(reward) });
    }
  }
  return [...byPool.values()];
}

export const getStakes: JsonRpcMethod = {
  name: 'suix_getStakes',
  translatesTo: 'gRPC StateService.ListOwnedObjects (StakedSui) + LedgerService.GetEpoch (validators) + BatchGetObjects (exchange rates)',
  unfilled: ['stakes of inactive validators: validatorAddress is the zero address (v2 lists active validators only)'],
  async handle(params, context) {
    const owner = normalizeSuiAddress(String(params.owner));
    const stakes: StakedSui[] = [];
    let pageToken: Uint8Array | undefined;
    do {
      const page = await read(context, 'ListOwnedObjects', (rpc) => context.upstream.grpc.stateService.listOwnedObjects({
        owner, objectType: STAKED_SUI, pageSize: 1000, ...(pageToken ? { pageToken } : {}), readMask: { paths: ['object_id', 'json'] },
      }, rpc));
      stakes.push(...page.objects.flatMap((object) => stakedSuiOf(object) ?? []));
      pageToken = page.nextPageToken;
    } while (pageToken !== undefined && pageToken.length > 0);
    return delegatedStakes(context, stakes);
  },
};

export const getStakesByIds: JsonRpcMethod = {
  name: 'suix_getStakesByIds',
  translatesTo: 'gRPC LedgerService.BatchGetObjects (StakedSui) + GetEpoch (validators) + BatchGetObjects (exchange rates)',
  unfilled: ['Unstaked: never answered (a withdrawn stake no longer exists; the id is skipped)'],
  async handle(params, context) {
    const ids = (params.staked_sui_ids as unknown[]).map((id) => normalizeSuiObjectId(String(id)));
    if (ids.length > MAX_STAKES) throw invalidParams(`at most ${MAX_STAKES} ids per call, got ${ids.length}`);
    const response = await read(context, 'BatchGetObjects', (rpc) => context.upstream.grpc.ledgerService.batchGetObjects({
      requests: ids.map((objectId) => ({ objectId })), readMask: { paths: ['object_id', 'object_type', 'json'] },
    }, rpc));
    const stakes = response.objects.flatMap((entry) => (entry.result.oneofKind === 'object' ? stakedSuiOf(entry.result.object) ?? [] : []));
    return delegatedStakes(context, stakes);
  },
};
