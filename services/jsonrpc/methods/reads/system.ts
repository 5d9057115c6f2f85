import type { GrpcTypes } from '@mysten/sui/grpc';
import { toBase64 } from '@mysten/sui/utils';
import { validatorApys } from '../../../upstream/index.js';
import { upstreamFailure, type JsonRpcContext, type JsonRpcMethod } from '../../method.js';
import { invalidParams, u64Param } from '../../params.js';
import { read, u64 } from './upstream-reads.js';

/** The system state, committee, protocol config and validator APYs (gRPC LedgerService.GetEpoch). */

export async function systemState(context: JsonRpcContext): Promise<GrpcTypes.SystemState> {
  const response = await read(context, 'GetEpoch', (rpc) => context.upstream.grpc.ledgerService.getEpoch({ readMask: { paths: ['epoch', 'system_state'] } }, rpc));
  const state = response.epoch?.systemState;
  if (!state) throw upstreamFailure('the upstream returned no system state', 'UPSTREAM_BAD_RESPONSE');
  return state;
}

function bytes(value: Uint8Array | undefined): string {
  return toBase64(value ?? new Uint8Array());
}

function legacyValidator(v: GrpcTypes.Validator) {
  const pool = v.stakingPool;
  return {
    suiAddress: v.address ?? '',
    protocolPubkeyBytes: bytes(v.protocolPublicKey),
    networkPubkeyBytes: bytes(v.networkPublicKey),
    workerPubkeyBytes: bytes(v.workerPublicKey),
    proofOfPossessionBytes: bytes(v.proofOfPossession),
    name: v.name ?? '',
    description: v.description ?? '',
    imageUrl: v.imageUrl ?? '',
    projectUrl: v.projectUrl ?? '',
    netAddress: v.networkAddress ?? '',
    p2pAddress: '',
    primaryAddress: v.primaryAddress ?? '',
    workerAddress: v.workerAddress ?? '',
    nextEpochProtocolPubkeyBytes: v.nextEpochProtocolPublicKey ? bytes(v.nextEpochProtocolPublicKey) : null,
    nextEpochProofOfPossession: v.nextEpochProofOfPossession ? bytes(v.nextEpochProofOfPossession) : null,
    nextEpochNetworkPubkeyBytes: v.nextEpochNetworkPublicKey ? bytes(v.nextEpochNetworkPublicKey) : null,
    nextEpochWorkerPubkeyBytes: v.nextEpochWorkerPublicKey ? bytes(v.nextEpochWorkerPublicKey) : null,
    nextEpochNetAddress: v.nextEpochNetworkAddress ?? null,
    nextEpochP2pAddress: null,
    nextEpochPrimaryAddress: v.nextEpochPrimaryAddress ?? null,
    nextEpochWorkerAddress: v.nextEpochWorkerAddress ?? null,
    votingPower: u64(v.votingPower),
    operationCapId: v.operationCapId ?? '',
    gasPrice: u64(v.gasPrice),
    commissionRate: u64(v.commissionRate),
    nextEpochStake: u64(v.nextEpochStake),
    nextEpochGasPrice: u64(v.nextEpochGasPrice),
    nextEpochCommissionRate: u64(v.nextEpochCommissionRate),
    stakingPoolId: pool?.id ?? '',
    stakingPoolActivationEpoch: pool?.activationEpoch === undefined ? null : u64(pool.activationEpoch),
    stakingPoolDeactivationEpoch: pool?.deactivationEpoch === undefined ? null : u64(pool.deactivationEpoch),
    stakingPoolSuiBalance: u64(pool?.suiBalance),
    rewardsPool: u64(pool?.rewardsPool),
    poolTokenBalance: u64(pool?.poolTokenBalance),
    pendingStake: u64(pool?.pendingStake),
    pendingTotalSuiWithdraw: u64(pool?.pendingTotalSuiWithdraw),
    pendingPoolTokenWithdraw: u64(pool?.pendingPoolTokenWithdraw),
    exchangeRatesId: pool?.exchangeRates?.id ?? '',
    exchangeRatesSize: u64(pool?.exchangeRates?.size),
  };
}

export function legacySystemState(state: GrpcTypes.SystemState) {
  const validators = state.validators;
  const parameters = state.parameters;
  const subsidy = state.stakeSubsidy;
  return {
    epoch: u64(state.epoch),
    protocolVersion: u64(state.protocolVersion),
    systemStateVersion: u64(state.version),
    storageFundTotalObjectStorageRebates: u64(state.storageFund?.totalObjectStorageRebates),
    storageFundNonRefundableBalance: u64(state.storageFund?.nonRefundableBalance),
    referenceGasPrice: u64(state.referenceGasPrice),
    safeMode: state.safeMode ?? false,
    safeModeStorageRewards: u64(state.safeModeStorageRewards),
    safeModeComputationRewards: u64(state.safeModeComputationRewards),
    safeModeStorageRebates: u64(state.safeModeStorageRebates),
    safeModeNonRefundableStorageFee: u64(state.safeModeNonRefundableStorageFee),
    epochStartTimestampMs: u64(state.epochStartTimestampMs),
    epochDurationMs: u64(parameters?.epochDurationMs),
    stakeSubsidyStartEpoch: u64(parameters?.stakeSubsidyStartEpoch),
    maxValidatorCount: u64(parameters?.maxValidatorCount),
    minValidatorJoiningStake: u64(parameters?.minValidatorJoiningStake),
    validatorLowStakeThreshold: u64(parameters?.validatorLowStakeThreshold),
    validatorVeryLowStakeThreshold: u64(parameters?.validatorVeryLowStakeThreshold),
    validatorLowStakeGracePeriod: u64(parameters?.validatorLowStakeGracePeriod),
    stakeSubsidyBalance: u64(subsidy?.balance),
    stakeSubsidyDistributionCounter: u64(subsidy?.distributionCounter),
    stakeSubsidyCurrentDistributionAmount: u64(subsidy?.currentDistributionAmount),
    stakeSubsidyPeriodLength: u64(subsidy?.stakeSubsidyPeriodLength),
    stakeSubsidyDecreaseRate: subsidy?.stakeSubsidyDecreaseRate ?? 0,
    totalStake: u64(validators?.totalStake),
    activeValidators: (validators?.activeValidators ?? []).map(legacyValidator),
    pendingActiveValidatorsId: validators?.pendingActiveValidators?.id ?? '',
    pendingActiveValidatorsSize: u64(validators?.pendingActiveValidators?.size),
    pendingRemovals: (validators?.pendingRemovals ?? []).map((index) => u64(index)),
    stakingPoolMappingsId: validators?.stakingPoolMappings?.id ?? '',
    stakingPoolMappingsSize: u64(validators?.stakingPoolMappings?.size),
    inactivePoolsId: validators?.inactiveValidators?.id ?? '',
    inactivePoolsSize: u64(validators?.inactiveValidators?.size),
    validatorCandidatesId: validators?.validatorCandidates?.id ?? '',
    validatorCandidatesSize: u64(validators?.validatorCandidates?.size),
    atRiskValidators: Object.entries(validators?.atRiskValidators ?? {}).map(([address, epochs]) => [address, u64(epochs)]),
    validatorReportRecords: state.validatorReportRecords.map((record) => [record.reported ?? '', record.reporters]),
  };
}

export const getLatestSuiSystemState: JsonRpcMethod = {
  name: 'suix_getLatestSuiSystemState',
  translatesTo: 'gRPC LedgerService.GetEpoch (system_state)',
  unfilled: ['activeValidators[].p2pAddress: "" and nextEpochP2pAddress: null (v2 does not carry p2p addresses)'],
  async handle(_params, context) {
    return legacySystemState(await systemState(context));
  },
};

export const getCommitteeInfo: JsonRpcMethod = {
  name: 'suix_getCommitteeInfo',
  translatesTo: 'gRPC LedgerService.GetEpoch (committee)',
  async handle(params, context) {
    const epoch = params.epoch === undefined ? undefined : u64Param(params.epoch, 'epoch');
    const response = await read(context, 'GetEpoch', (rpc) => context.upstream.grpc.ledgerService.getEpoch({
      ...(epoch === undefined ? {} : { epoch }), readMask: { paths: ['epoch', 'committee'] },
    }, rpc));
    const committee = response.epoch?.committee;
    return {
      epoch: u64(response.epoch?.epoch),
      validators: (committee?.members ?? []).map((member) => [bytes(member.publicKey), u64(member.weight)]),
    };
  },
};

/** v2 gives every attribute as a string; the legacy value names its type, read here from the value. */
function attribute(value: string): Record<string, string> {
  if (/^[0-9]+$/.test(value)) return { u64: value };
  if (value === 'true' || value === 'false') return { bool: value };
  return { f64: value };
}

export const getProtocolConfig: JsonRpcMethod = {
  name: 'sui_getProtocolConfig',
  translatesTo: 'gRPC LedgerService.GetEpoch (protocol_config)',
  unfilled: [
    'min/maxSupportedProtocolVersion: the epoch\'s protocol version (v2 does not say what the node supports)',
    'attributes: typed from the value (integers as u64, true/false as bool, anything else f64)',
    'version param: only the current version is served (another one is -32602)',
  ],
  async handle(params, context) {
    const response = await read(context, 'GetEpoch', (rpc) => context.upstream.grpc.ledgerService.getEpoch({ readMask: { paths: ['protocol_config'] } }, rpc));
    const config = response.epoch?.protocolConfig;
    const version = u64(config?.protocolVersion);
    if (params.version !== undefined && String(params.version) !== version) {
      throw invalidParams(`only the current protocol version (${version}) is served`);
    }
    return {
      minSupportedProtocolVersion: version,
      maxSupportedProtocolVersion: version,
      protocolVersion: version,
      featureFlags: { ...(config?.featureFlags ?? {}) },
      attributes: Object.fromEntries(Object.entries(config?.attributes ?? {}).map(([key, value]) => [key, attribute(value)])),
    };
  },
};

export const getValidatorsApy: JsonRpcMethod = {
  name: 'suix_getValidatorsApy',
  translatesTo: 'gRPC LedgerService.GetEpoch (system_state) + BatchGetObjects of the pools\' exchange rates (the REST layer\'s computation, services/upstream/validator-apy.ts)',
  async handle(_params, context) {
    const state = await systemState(context);
    const apys = await validatorApys(context.upstream, state);
    return { apys: apys.map((entry) => ({ address: entry.address, apy: entry.apy })), epoch: u64(state.epoch) };
  },
};
