import type { GrpcTypes } from '@mysten/sui/grpc';
import type { CheckpointRecord, EpochRecord, LedgerReader, SystemStateRecord, ValidatorRecord } from '../ledger/index.js';
import { executedTransactionToProto, signatureToProto, transactionObjects } from './convert-transactions.js';
import { toTimestamp } from './proto-values.js';
import type { ReadMask } from './read-mask.js';

export function checkpointToProto(ledger: LedgerReader, checkpoint: CheckpointRecord, mask: ReadMask): GrpcTypes.Checkpoint {
  const proto: GrpcTypes.Checkpoint = { sequenceNumber: checkpoint.sequenceNumber, digest: checkpoint.digest, transactions: [] };
  if (mask.has('summary')) {
    proto.summary = {
      bcs: { name: 'CheckpointSummary', value: checkpoint.summaryBcs },
      digest: checkpoint.digest,
      epoch: checkpoint.epoch,
      sequenceNumber: checkpoint.sequenceNumber,
      totalNetworkTransactions: checkpoint.networkTotalTransactions,
      contentDigest: checkpoint.contentDigest,
      previousDigest: checkpoint.previousDigest,
      epochRollingGasCostSummary: checkpoint.epochRollingGasCostSummary,
      timestamp: toTimestamp(checkpoint.timestampMs),
      commitments: [],
      versionSpecificData: new Uint8Array(),
    };
  }
  // Simnet has no validator keys: the aggregated signature is a deterministic placeholder.
  if (mask.has('signature')) proto.signature = { epoch: checkpoint.epoch, signature: new Uint8Array(48), bitmap: new Uint8Array() };
  const needsTransactions = mask.has('transactions') || mask.has('contents') || mask.has('objects');
  const transactions = needsTransactions ? ledger.checkpointTransactions(checkpoint.sequenceNumber) : [];
  if (mask.has('contents')) {
    proto.contents = {
      bcs: { name: 'CheckpointContents', value: checkpoint.contentsBcs },
      digest: checkpoint.contentDigest,
      version: 1,
      transactions: transactions.map((tx) => ({ transaction: tx.digest, effects: tx.effects.digest, signatures: tx.signatures.map(signatureToProto), addressAliasesVersions: [] })),
    };
  }
  if (mask.has('objects')) {
    const objectMask = mask.sub('objects').sub('objects');
    proto.objects = { objects: transactions.flatMap((tx) => transactionObjects(tx, ledger, objectMask)) };
  }
  if (mask.has('transactions')) {
    const txMask = mask.sub('transactions');
    proto.transactions = transactions.map((tx) => executedTransactionToProto(tx, txMask, ledger));
  }
  return proto;
}

function validatorToProto(validator: ValidatorRecord): GrpcTypes.Validator {
  return {
    name: validator.name,
    address: validator.address,
    description: validator.description,
    imageUrl: validator.imageUrl,
    projectUrl: validator.projectUrl,
    protocolPublicKey: validator.protocolPublicKey,
    proofOfPossession: validator.proofOfPossession,
    networkPublicKey: validator.networkPublicKey,
    workerPublicKey: validator.workerPublicKey,
    networkAddress: validator.networkAddress,
    primaryAddress: validator.networkAddress.replace('/http', '/udp'),
    workerAddress: validator.networkAddress.replace('/http', '/udp'),
    votingPower: validator.votingPower,
    operationCapId: validator.operationCapId,
    gasPrice: validator.gasPrice,
    stakingPool: {
      id: validator.stakingPoolId,
      activationEpoch: validator.activationEpoch,
      suiBalance: validator.stakingPoolSuiBalance,
      rewardsPool: validator.rewardsPool,
      poolTokenBalance: validator.poolTokenBalance,
      exchangeRates: { id: validator.exchangeRatesId, size: BigInt(validator.exchangeRates.length) },
      pendingStake: 0n,
      pendingTotalSuiWithdraw: 0n,
      pendingPoolTokenWithdraw: 0n,
    },
    commissionRate: validator.commissionRate,
    nextEpochStake: validator.stakingPoolSuiBalance,
    nextEpochGasPrice: validator.gasPrice,
    nextEpochCommissionRate: validator.commissionRate,
  };
}

export function systemStateToProto(state: SystemStateRecord): GrpcTypes.SystemState {
  return {
    version: state.version,
    epoch: state.epoch,
    protocolVersion: state.protocolVersion,
    validators: {
      totalStake: state.totalStake,
      activeValidators: state.validators.map(validatorToProto),
      pendingRemovals: [],
      atRiskValidators: {},
      pendingActiveValidators: { size: 0n },
      stakingPoolMappings: { size: BigInt(state.validators.length) },
      inactiveValidators: { size: 0n },
      validatorCandidates: { size: 0n },
    },
    storageFund: { totalObjectStorageRebates: state.storageFundTotalObjectStorageRebates, nonRefundableBalance: state.storageFundNonRefundableBalance },
    parameters: {
      epochDurationMs: state.epochDurationMs,
      stakeSubsidyStartEpoch: state.stakeSubsidyStartEpoch,
      minValidatorCount: state.minValidatorCount,
      maxValidatorCount: state.maxValidatorCount,
      minValidatorJoiningStake: state.minValidatorJoiningStake,
      validatorLowStakeThreshold: state.validatorLowStakeThreshold,
      validatorVeryLowStakeThreshold: state.validatorVeryLowStakeThreshold,
      validatorLowStakeGracePeriod: state.validatorLowStakeGracePeriod,
    },
    referenceGasPrice: state.referenceGasPrice,
    validatorReportRecords: [],
    stakeSubsidy: {
      balance: state.stakeSubsidyBalance,
      distributionCounter: state.stakeSubsidyDistributionCounter,
      currentDistributionAmount: state.stakeSubsidyCurrentDistributionAmount,
      stakeSubsidyPeriodLength: state.stakeSubsidyPeriodLength,
      stakeSubsidyDecreaseRate: state.stakeSubsidyDecreaseRate,
    },
    safeMode: state.safeMode,
    safeModeStorageRewards: 0n,
    safeModeComputationRewards: 0n,
    safeModeStorageRebates: 0n,
    safeModeNonRefundableStorageFee: 0n,
    epochStartTimestampMs: state.epochStartTimestampMs,
  };
}

export function epochToProto(ledger: LedgerReader, epoch: EpochRecord, mask: ReadMask): GrpcTypes.Epoch {
  const current = ledger.currentEpoch().epoch === epoch.epoch;
  const state = ledger.systemState();
  const proto: GrpcTypes.Epoch = {
    epoch: epoch.epoch,
    firstCheckpoint: epoch.firstCheckpoint,
    lastCheckpoint: epoch.lastCheckpoint,
    start: toTimestamp(epoch.startTimestampMs),
    end: epoch.endTimestampMs !== undefined ? toTimestamp(epoch.endTimestampMs) : undefined,
    referenceGasPrice: epoch.referenceGasPrice,
  };
  if (mask.has('committee')) {
    proto.committee = { epoch: epoch.epoch, members: state.validators.map((validator) => ({ publicKey: validator.protocolPublicKey, weight: validator.votingPower })) };
  }
  // Only the current epoch's system state is kept; past epochs report the current validator set.
  if (mask.has('system_state')) proto.systemState = current ? systemStateToProto(state) : { ...systemStateToProto(state), epoch: epoch.epoch, protocolVersion: epoch.protocolVersion, epochStartTimestampMs: epoch.startTimestampMs };
  if (mask.has('protocol_config')) {
    const config = ledger.protocolConfig();
    proto.protocolConfig = { protocolVersion: epoch.protocolVersion, featureFlags: { ...config.featureFlags }, attributes: { ...config.attributes }, configs: {} };
  }
  return proto;
}
