import type { GrpcTypes } from '@mysten/sui/grpc';
import type { Checkpoint, NetworkStats, StakingParameters, Validator } from '../schemas.js';
import { fullAddress, timestampMs } from './proto-values.js';
import { imageUrl, linkUrl } from './web-url.js';

export function toCheckpoint(checkpoint: GrpcTypes.Checkpoint): Checkpoint {
  const summary = checkpoint.summary;
  return {
    sequenceNumber: Number(checkpoint.sequenceNumber ?? summary?.sequenceNumber ?? 0n),
    digest: checkpoint.digest ?? summary?.digest ?? '',
    prevDigest: summary?.previousDigest ?? null,
    timestampMs: Number(timestampMs(summary?.timestamp) ?? 0n),
    epoch: Number(summary?.epoch ?? 0n),
    networkTxCount: Number(summary?.totalNetworkTransactions ?? 0n),
    transactionBlockCount: checkpoint.contents?.transactions.length ?? checkpoint.transactions.length,
  };
}

/**
 * Transactions per second over a span of checkpoints: the difference of the network's
 * running transaction count divided by the time between the two checkpoints.
 */
export function networkTps(newer: Checkpoint, older: Checkpoint): number | undefined {
  const ms = newer.timestampMs - older.timestampMs;
  if (ms <= 0 || newer.sequenceNumber <= older.sequenceNumber) return undefined;
  return Math.round(((newer.networkTxCount - older.networkTxCount) * 1000 / ms) * 100) / 100;
}

export function toStakingParameters(state: GrpcTypes.SystemState): StakingParameters {
  const p = state.parameters ?? {};
  const joining = (p.minValidatorJoiningStake ?? 0n).toString();
  return {
    epochLength: (p.epochDurationMs ?? 0n).toString(),
    // Sui no longer has a separate minimum stake for staying a validator beyond the low-stake
    // thresholds; the minimum to become one is the joining stake.
    minValidatorStake: joining,
    maxValidatorCount: Number(p.maxValidatorCount ?? 0n),
    minValidatorJoiningStake: joining,
    validatorLowStakeThreshold: (p.validatorLowStakeThreshold ?? 0n).toString(),
    validatorVeryLowStakeThreshold: (p.validatorVeryLowStakeThreshold ?? 0n).toString(),
    validatorLowStakeGracePeriod: (p.validatorLowStakeGracePeriod ?? 0n).toString(),
  };
}

export function toNetworkStats(state: GrpcTypes.SystemState, latest: Checkpoint): NetworkStats {
  return {
    totalValidators: state.validators?.activeValidators.length ?? 0,
    totalStake: (state.validators?.totalStake ?? 0n).toString(),
    totalCheckpoints: String(latest.sequenceNumber + 1),
    totalTransactions: String(latest.networkTxCount),
    epoch: (state.epoch ?? 0n).toString(),
    epochStartTimestamp: (state.epochStartTimestampMs ?? 0n).toString(),
    epochDurationMs: (state.parameters?.epochDurationMs ?? 0n).toString(),
  };
}

/** Commission is in basis points on chain; the resource wants a 0..1 decimal string. */
export function basisPointsToRate(bps: bigint | undefined): string {
  return (Number(bps ?? 0n) / 10_000).toString();
}

export function toValidator(v: GrpcTypes.Validator): Validator {
  const validator: Validator = {
    suiAddress: fullAddress(v.address),
    name: v.name ?? '',
    description: v.description ?? '',
    votingPower: (v.votingPower ?? 0n).toString(),
    stakeAmount: (v.stakingPool?.suiBalance ?? 0n).toString(),
    commissionRate: basisPointsToRate(v.commissionRate),
    nextEpochStake: (v.nextEpochStake ?? 0n).toString(),
  };
  const image = imageUrl(v.imageUrl);
  const projectUrl = linkUrl(v.projectUrl);
  if (image) validator.imageUrl = image;
  if (projectUrl) validator.projectUrl = projectUrl;
  return validator;
}
