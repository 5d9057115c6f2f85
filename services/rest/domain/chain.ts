import type { GrpcTypes } from '@mysten/sui/grpc';
import { ApiError } from '../../core/errors.js';
import type { ChainInfo, Checkpoint, NetworkStats, StakingParameters, Validator, ValidatorApy } from '../schemas.js';
import { upstreamApiError, validatorApys } from '../../upstream/index.js';
import type { NetworkContext } from './context.js';
import { networkTps, toCheckpoint, toNetworkStats, toStakingParameters, toValidator } from './map-chain.js';
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

  /** See services/upstream/validator-apy.ts: the computation JSON-RPC's suix_getValidatorsApy shares. */
  async validatorApys(ctx: NetworkContext): Promise<ValidatorApy[]> {
    const state = await this.systemState(ctx);
    const epoch = (state.epoch ?? 0n).toString();
    try {
      const apys = await validatorApys(ctx.upstream, state);
      return apys.map((entry) => ({ validatorAddress: entry.address, apy: entry.apy, epoch }));
    } catch (error) {
      throw upstreamApiError(error);
    }
  }
}
