import { bcs } from '@mysten/sui/bcs';
import type { GrpcTypes } from '@mysten/sui/grpc';
import { deriveDynamicFieldID } from '@mysten/sui/utils';
import { ApiError } from '../../core/errors.js';
import type { ChainInfo, Checkpoint, NetworkStats, StakingParameters, Validator, ValidatorApy } from '../schemas.js';
import { apyFromRates, apyWindow, type ExchangeRate } from './apy.js';
import type { NetworkContext } from './context.js';
import { networkTps, toCheckpoint, toNetworkStats, toStakingParameters, toValidator } from './map-chain.js';
import { fullAddress, valueToJson, type ProtoValue } from './proto-values.js';
import { ask, fieldMask } from './upstream-calls.js';

const CHECKPOINT_MASK = ['sequence_number', 'digest', 'summary.epoch', 'summary.sequence_number', 'summary.total_network_transactions', 'summary.previous_digest', 'summary.timestamp', 'contents.transactions'];
/** Checkpoints back from the tip over which `networkTps` is measured. */
const TPS_SPAN = 10n;

export type CheckpointId = { sequenceNumber: bigint } | { digest: string };

export class ChainService {
  async checkpoint(ctx: NetworkContext, id: CheckpointId | 'latest'): Promise<Checkpoint> {
    const checkpointId = id === 'latest' ? { oneofKind: undefined }
      : 'digest' in id ? { oneofKind: 'digest' as const, digest: id.digest }
        : { oneofKind: 'sequenceNumber' as const, sequenceNumber: id.sequenceNumber };
    const response = await ask(ctx.upstream, 'GetCheckpoint', (o) =>
      ctx.upstream.grpc.ledgerService.getCheckpoint({ checkpointId, readMask: fieldMask(CHECKPOINT_MASK) }, o), 'CHECKPOINT_NOT_FOUND');
    if (!response.checkpoint) throw new ApiError('CHECKPOINT_NOT_FOUND');
    return toCheckpoint(response.checkpoint);
  }

  async systemState(ctx: NetworkContext): Promise<GrpcTypes.SystemState> {
    const response = await ask(ctx.upstream, 'GetEpoch', (o) =>
      ctx.upstream.grpc.ledgerService.getEpoch({ readMask: fieldMask(['epoch', 'system_state']) }, o));
    if (!response.epoch?.systemState) throw new ApiError('UPSTREAM_BAD_RESPONSE', { message: 'GetEpoch returned no system state' });
    return response.epoch.systemState;
  }

  async chainInfo(ctx: NetworkContext): Promise<ChainInfo> {
    const [info, latest, state] = await Promise.all([
      ask(ctx.upstream, 'GetServiceInfo', (o) => ctx.upstream.grpc.ledgerService.getServiceInfo({}, o)),
      this.checkpoint(ctx, 'latest'),
      this.systemState(ctx),
    ]);
    const chain: ChainInfo = {
      chainId: info.chainId ?? '',
      version: (state.protocolVersion ?? 0n).toString(),
      latestCheckpoint: String(latest.sequenceNumber),
      totalTransactions: String(latest.networkTxCount),
    };
    const back = BigInt(latest.sequenceNumber) - TPS_SPAN;
    if (back >= 0n) {
      const older = await this.checkpoint(ctx, { sequenceNumber: back }).catch(() => undefined);
      const tps = older ? networkTps(latest, older) : undefined;
      if (tps !== undefined) chain.networkTps = tps;
    }
    return chain;
  }

  async stakingParameters(ctx: NetworkContext): Promise<StakingParameters> {
    return toStakingParameters(await this.systemState(ctx));
  }

  async networkStats(ctx: NetworkContext): Promise<NetworkStats> {
    const [state, latest] = await Promise.all([this.systemState(ctx), this.checkpoint(ctx, 'latest')]);
    return toNetworkStats(state, latest);
  }

  async validators(ctx: NetworkContext): Promise<Validator[]> {
    const state = await this.systemState(ctx);
    return (state.validators?.activeValidators ?? []).map(toValidator);
  }

  /** See `apy.ts` for the formula; rates come from each pool's `exchange_rates` table entries. */
  async validatorApys(ctx: NetworkContext): Promise<ValidatorApy[]> {
    const state = await this.systemState(ctx);
    const epoch = state.epoch ?? 0n;
    const epochMs = state.parameters?.epochDurationMs ?? 86_400_000n;
    const validators = state.validators?.activeValidators ?? [];
    const wanted = validators.map((v) => {
      const table = v.stakingPool?.exchangeRates?.id;
      const window = apyWindow(epoch, v.stakingPool?.activationEpoch);
      const fieldId = (e: bigint) => (table ? deriveDynamicFieldID(table, 'u64', bcs.u64().serialize(e).toBytes()) : undefined);
      return { validator: v, window, fromId: fieldId(window.from), toId: fieldId(window.to) };
    });
    const ids = [...new Set(wanted.flatMap((w) => [w.fromId, w.toId]).filter((id): id is string => !!id))];
    const rates = new Map<string, ExchangeRate>();
    for (let i = 0; i < ids.length; i += 50) {
      const chunk = ids.slice(i, i + 50);
      const response = await ask(ctx.upstream, 'BatchGetObjects', (o) => ctx.upstream.grpc.ledgerService.batchGetObjects({
        requests: chunk.map((objectId) => ({ objectId })), readMask: fieldMask(['object_id', 'json']),
      }, o));
      response.objects.forEach((result, index) => {
        if (result.result.oneofKind !== 'object') return;
        const rate = exchangeRateFromField(result.result.object);
        const id = chunk[index];
        if (rate && id) rates.set(fullAddress(id), rate);
      });
    }
    return Promise.all(wanted.map(async (w) => {
      let latest = w.toId ? rates.get(fullAddress(w.toId)) : undefined;
      let earlier = w.fromId ? rates.get(fullAddress(w.fromId)) : undefined;
      const table = w.validator.stakingPool?.exchangeRates?.id;
      if ((!latest || !earlier) && table) {
        // Fallback when the entries are not at their derived ids: list the table itself.
        const listed = await this.#listRates(ctx, table, w.window);
        latest ??= listed.get(w.window.to);
        earlier ??= listed.get(w.window.from);
      }
      return { validatorAddress: fullAddress(w.validator.address), apy: apyFromRates(latest, earlier, epochMs), epoch: epoch.toString() };
    }));
  }

  async #listRates(ctx: NetworkContext, table: string, window: { from: bigint; to: bigint }): Promise<Map<bigint, ExchangeRate>> {
    const found = new Map<bigint, ExchangeRate>();
    let pageToken: Uint8Array | undefined;
    for (let page = 0; page < 10 && !(found.has(window.from) && found.has(window.to)); page += 1) {
      const response = await ask(ctx.upstream, 'ListDynamicFields', (o) => ctx.upstream.grpc.stateService.listDynamicFields({
        parent: table, pageSize: 1000, pageToken, readMask: fieldMask(['name', 'value']),
      }, o));
      for (const field of response.dynamicFields) {
        const rate = exchangeRateFromBcs(field.name?.value, field.value?.value);
        if (rate && (rate.epoch === window.from || rate.epoch === window.to)) found.set(rate.epoch, rate);
      }
      pageToken = response.nextPageToken?.length ? response.nextPageToken : undefined;
      if (!pageToken) break;
    }
    return found;
  }
}

/** `0x2::dynamic_field::Field<u64, PoolTokenExchangeRate>` as JSON → an ExchangeRate. */
export function exchangeRateFromField(object: GrpcTypes.Object): ExchangeRate | undefined {
  const json = valueToJson(object.json as ProtoValue | undefined) as { name?: unknown; value?: { sui_amount?: unknown; pool_token_amount?: unknown } } | null;
  if (!json || json.name === undefined || !json.value) return undefined;
  try {
    return { epoch: BigInt(String(json.name)), suiAmount: BigInt(String(json.value.sui_amount ?? 0)), poolTokenAmount: BigInt(String(json.value.pool_token_amount ?? 0)) };
  } catch {
    return undefined;
  }
}

/** A table entry's BCS: key u64 epoch; value PoolTokenExchangeRate { sui_amount: u64, pool_token_amount: u64 }. */
export function exchangeRateFromBcs(name: Uint8Array | undefined, value: Uint8Array | undefined): ExchangeRate | undefined {
  if (!name || name.length !== 8 || !value || value.length < 16) return undefined;
  const key = Buffer.from(name);
  const rate = Buffer.from(value);
  return { epoch: key.readBigUInt64LE(0), suiAmount: rate.readBigUInt64LE(0), poolTokenAmount: rate.readBigUInt64LE(8) };
}
