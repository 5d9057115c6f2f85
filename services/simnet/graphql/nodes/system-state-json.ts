import type { JsonValue, SystemStateRecord, ValidatorRecord } from '../../ledger/index.js';

const str = (n: bigint) => n.toString();
/** `vector<u8>` fields render as Base64 in Sui's JSON. */
const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

/** `0x3::validator::Validator` as Sui's GraphQL renders its JSON (u64 as strings). */
export function validatorJson(v: ValidatorRecord): JsonValue {
  return {
    metadata: {
      sui_address: v.address,
      protocol_pubkey_bytes: base64(v.protocolPublicKey),
      network_pubkey_bytes: base64(v.networkPublicKey),
      worker_pubkey_bytes: base64(v.workerPublicKey),
      proof_of_possession: base64(v.proofOfPossession),
      name: v.name,
      description: v.description,
      image_url: v.imageUrl,
      project_url: v.projectUrl,
      net_address: v.networkAddress,
    },
    voting_power: str(v.votingPower),
    operation_cap_id: v.operationCapId,
    gas_price: str(v.gasPrice),
    staking_pool: {
      id: v.stakingPoolId,
      activation_epoch: str(v.activationEpoch),
      sui_balance: str(v.stakingPoolSuiBalance),
      rewards_pool: str(v.rewardsPool),
      pool_token_balance: str(v.poolTokenBalance),
      exchange_rates: { id: v.exchangeRatesId, size: String(v.exchangeRates.length) },
    },
    commission_rate: str(v.commissionRate),
    next_epoch_stake: str(v.stakingPoolSuiBalance),
    next_epoch_gas_price: str(v.gasPrice),
    next_epoch_commission_rate: str(v.commissionRate),
  };
}

export function validatorSetJson(state: SystemStateRecord): JsonValue {
  return {
    total_stake: str(state.totalStake),
    active_validators: state.validators.map(validatorJson),
  };
}

/** `0x3::sui_system_state_inner::SuiSystemStateInnerV2` JSON, the fields the SDK reads. */
export function systemStateJson(state: SystemStateRecord): JsonValue {
  return {
    epoch: str(state.epoch),
    protocol_version: str(state.protocolVersion),
    system_state_version: str(state.version),
    validators: validatorSetJson(state),
    storage_fund: {
      total_object_storage_rebates: str(state.storageFundTotalObjectStorageRebates),
      non_refundable_balance: str(state.storageFundNonRefundableBalance),
    },
    parameters: {
      epoch_duration_ms: str(state.epochDurationMs),
      stake_subsidy_start_epoch: str(state.stakeSubsidyStartEpoch),
      max_validator_count: str(state.maxValidatorCount),
      min_validator_count: str(state.minValidatorCount),
      min_validator_joining_stake: str(state.minValidatorJoiningStake),
      validator_low_stake_threshold: str(state.validatorLowStakeThreshold),
      validator_very_low_stake_threshold: str(state.validatorVeryLowStakeThreshold),
      validator_low_stake_grace_period: str(state.validatorLowStakeGracePeriod),
    },
    reference_gas_price: str(state.referenceGasPrice),
    safe_mode: state.safeMode,
    safe_mode_storage_rewards: '0',
    safe_mode_computation_rewards: '0',
    safe_mode_storage_rebates: '0',
    safe_mode_non_refundable_storage_fee: '0',
    epoch_start_timestamp_ms: str(state.epochStartTimestampMs),
    stake_subsidy: {
      balance: str(state.stakeSubsidyBalance),
      distribution_counter: str(state.stakeSubsidyDistributionCounter),
      current_distribution_amount: str(state.stakeSubsidyCurrentDistributionAmount),
      stake_subsidy_period_length: str(state.stakeSubsidyPeriodLength),
      stake_subsidy_decrease_rate: state.stakeSubsidyDecreaseRate,
    },
  };
}
