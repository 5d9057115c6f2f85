import type { CheckpointRecord, EpochRecord, JsonValue, NameRecord, SystemStateRecord, ValidatorRecord } from '../../ledger/index.js';
import type { RequestContext } from '../context.js';
import { pageLimits } from '../limits.js';
import { pageFromArgs, paginate } from '../pagination.js';
import type { Connection, PageArgs } from '../pagination.js';
import { MoveValueNode } from './move.js';
import { AddressNode } from './objects.js';
import { transactionConnection } from './transactions.js';
import type { TransactionFilterArgs } from './transactions.js';

export interface CheckpointFilterArgs {
  afterCheckpoint?: number | null;
  atCheckpoint?: number | null;
  atEpoch?: number | null;
  beforeCheckpoint?: number | null;
}

export function allCheckpoints(ctx: RequestContext): CheckpointRecord[] {
  const latest = Number(ctx.ledger.latestCheckpoint().sequenceNumber);
  const checkpoints: CheckpointRecord[] = [];
  for (let seq = 0; seq <= latest; seq++) {
    const checkpoint = ctx.ledger.getCheckpoint(BigInt(seq));
    if (checkpoint) checkpoints.push(checkpoint);
  }
  return checkpoints;
}

export function checkpointConnection(ctx: RequestContext, filter: CheckpointFilterArgs, args: PageArgs): Connection<CheckpointNode> {
  const page = pageFromArgs(args, pageLimits('Query', 'checkpoints'));
  const matching = allCheckpoints(ctx).filter((c) => {
    const seq = Number(c.sequenceNumber);
    return (
      (filter.afterCheckpoint == null || seq > filter.afterCheckpoint) &&
      (filter.beforeCheckpoint == null || seq < filter.beforeCheckpoint) &&
      (filter.atCheckpoint == null || seq === filter.atCheckpoint) &&
      (filter.atEpoch == null || Number(c.epoch) === filter.atEpoch)
    );
  });
  return paginate(matching, (c) => Number(c.sequenceNumber), page, (c) => new CheckpointNode(ctx, c));
}

export class CheckpointNode {
  readonly __typename = 'Checkpoint';
  readonly #ctx: RequestContext;
  readonly #checkpoint: CheckpointRecord;

  constructor(ctx: RequestContext, checkpoint: CheckpointRecord) {
    this.#ctx = ctx;
    this.#checkpoint = checkpoint;
  }

  get sequenceNumber(): number {
    return Number(this.#checkpoint.sequenceNumber);
  }

  get digest(): string {
    return this.#checkpoint.digest;
  }

  get contentDigest(): string {
    return this.#checkpoint.contentDigest;
  }

  get previousCheckpointDigest(): string | null {
    return this.#checkpoint.previousDigest ?? null;
  }

  get networkTotalTransactions(): number {
    return Number(this.#checkpoint.networkTotalTransactions);
  }

  get timestamp(): bigint {
    return this.#checkpoint.timestampMs;
  }

  get summaryBcs(): Uint8Array {
    return this.#checkpoint.summaryBcs;
  }

  get contentBcs(): Uint8Array {
    return this.#checkpoint.contentsBcs;
  }

  rollingGasSummary() {
    const gas = this.#checkpoint.epochRollingGasCostSummary;
    return {
      __typename: 'GasCostSummary',
      computationCost: Number(gas.computationCost),
      storageCost: Number(gas.storageCost),
      storageRebate: Number(gas.storageRebate),
      nonRefundableStorageFee: Number(gas.nonRefundableStorageFee),
    };
  }

  epoch(): EpochNode | null {
    const epoch = this.#ctx.ledger.getEpoch(this.#checkpoint.epoch);
    return epoch ? new EpochNode(this.#ctx, epoch) : null;
  }

  transactions(args: PageArgs & { filter?: TransactionFilterArgs | null }) {
    const filter = { ...(args.filter ?? {}), atCheckpoint: this.sequenceNumber };
    return transactionConnection(this.#ctx, filter, args, pageLimits('Checkpoint', 'transactions'));
  }
}

/** Which checkpoints an epoch spans on this chain (the current epoch runs to the latest one). */
function epochCheckpoints(ctx: RequestContext, epoch: EpochRecord): { first: bigint; last: bigint } | null {
  if (epoch.firstCheckpoint === undefined) return null;
  return { first: epoch.firstCheckpoint, last: epoch.lastCheckpoint ?? ctx.ledger.latestCheckpoint().sequenceNumber };
}

export class EpochNode {
  readonly __typename = 'Epoch';
  readonly #ctx: RequestContext;
  readonly #epoch: EpochRecord;

  constructor(ctx: RequestContext, epoch: EpochRecord) {
    this.#ctx = ctx;
    this.#epoch = epoch;
  }

  get epochId(): number {
    return Number(this.#epoch.epoch);
  }

  get referenceGasPrice(): bigint {
    return this.#epoch.referenceGasPrice;
  }

  get startTimestamp(): bigint {
    return this.#epoch.startTimestampMs;
  }

  get endTimestamp(): bigint | null {
    return this.#epoch.endTimestampMs ?? null;
  }

  totalCheckpoints(): number | null {
    const span = epochCheckpoints(this.#ctx, this.#epoch);
    return span ? Number(span.last - span.first) + 1 : null;
  }

  totalTransactions(): number | null {
    const span = epochCheckpoints(this.#ctx, this.#epoch);
    if (!span) return null;
    const last = this.#ctx.ledger.getCheckpoint(span.last);
    const beforeFirst = span.first > 0n ? this.#ctx.ledger.getCheckpoint(span.first - 1n) : undefined;
    return Number((last?.networkTotalTransactions ?? 0n) - (beforeFirst?.networkTotalTransactions ?? 0n));
  }

  totalGasFees(): bigint | null {
    const span = epochCheckpoints(this.#ctx, this.#epoch);
    const gas = span && this.#ctx.ledger.getCheckpoint(span.last)?.epochRollingGasCostSummary;
    return gas ? gas.computationCost + gas.storageCost - gas.storageRebate : null;
  }

  protocolConfigs(): ProtocolConfigsNode | null {
    const config = this.#ctx.ledger.protocolConfig();
    return config.protocolVersion === this.#epoch.protocolVersion ? new ProtocolConfigsNode(this.#ctx) : null;
  }

  /** simnet keeps only the current system state; past epochs answer with it too. */
  systemState(): MoveValueNode {
    return new MoveValueNode('0x0000000000000000000000000000000000000000000000000000000000000003::sui_system_state_inner::SuiSystemStateInnerV2', null, systemStateJson(this.#ctx.ledger.systemState()));
  }

  validatorSet() {
    const ctx = this.#ctx;
    const state = ctx.ledger.systemState();
    return {
      __typename: 'ValidatorSet',
      contents: new MoveValueNode('0x0000000000000000000000000000000000000000000000000000000000000003::validator_set::ValidatorSet', null, validatorSetJson(state)),
      activeValidators(args: PageArgs) {
        const validators = state.validators.map((validator, index) => ({ validator, index }));
        return paginate(validators, (v) => v.index, pageFromArgs(args, pageLimits('ValidatorSet', 'activeValidators')), ({ validator }) => ({
          __typename: 'Validator',
          atRisk: null,
          contents: new MoveValueNode('0x0000000000000000000000000000000000000000000000000000000000000003::validator::Validator', null, validatorJson(validator)),
        }));
      },
    };
  }

  checkpoints(args: PageArgs & { filter?: CheckpointFilterArgs | null }) {
    return checkpointConnection(this.#ctx, { ...(args.filter ?? {}), atEpoch: this.epochId }, args);
  }

  transactions(args: PageArgs & { filter?: TransactionFilterArgs | null }) {
    const span = epochCheckpoints(this.#ctx, this.#epoch);
    if (!span) return transactionConnection(this.#ctx, { ...(args.filter ?? {}), atCheckpoint: -1 }, args, pageLimits('Epoch', 'transactions'));
    const filter = { ...(args.filter ?? {}) };
    filter.afterCheckpoint = Math.max(filter.afterCheckpoint ?? -1, Number(span.first) - 1);
    filter.beforeCheckpoint = Math.min(filter.beforeCheckpoint ?? Number.MAX_SAFE_INTEGER, Number(span.last) + 1);
    return transactionConnection(this.#ctx, filter, args, pageLimits('Epoch', 'transactions'));
  }
}

export class ProtocolConfigsNode {
  readonly __typename = 'ProtocolConfigs';
  readonly #ctx: RequestContext;

  constructor(ctx: RequestContext) {
    this.#ctx = ctx;
  }

  get protocolVersion(): number {
    return Number(this.#ctx.ledger.protocolConfig().protocolVersion);
  }

  configs() {
    return Object.entries(this.#ctx.ledger.protocolConfig().attributes)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([key, value]) => ({ __typename: 'ProtocolConfig', key, value }));
  }

  config({ key }: { key: string }) {
    const value = this.#ctx.ledger.protocolConfig().attributes[key];
    return value === undefined ? null : { __typename: 'ProtocolConfig', key, value };
  }

  featureFlags() {
    return Object.entries(this.#ctx.ledger.protocolConfig().featureFlags)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([key, value]) => ({ __typename: 'FeatureFlag', key, value }));
  }

  featureFlag({ key }: { key: string }) {
    const value = this.#ctx.ledger.protocolConfig().featureFlags[key];
    return value === undefined ? null : { __typename: 'FeatureFlag', key, value };
  }
}

const str = (n: bigint) => n.toString();
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

/** `0x3::validator::Validator` as Sui's GraphQL renders its JSON (u64 as strings). */
export function validatorJson(v: ValidatorRecord): JsonValue {
  return {
    metadata: {
      sui_address: v.address,
      protocol_pubkey_bytes: hex(v.protocolPublicKey),
      network_pubkey_bytes: hex(v.networkPublicKey),
      worker_pubkey_bytes: hex(v.workerPublicKey),
      proof_of_possession: hex(v.proofOfPossession),
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

function validatorSetJson(state: SystemStateRecord): JsonValue {
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

export class NameRecordNode {
  readonly __typename = 'NameRecord';
  readonly #ctx: RequestContext;
  readonly #record: NameRecord;

  constructor(ctx: RequestContext, record: NameRecord) {
    this.#ctx = ctx;
    this.#record = record;
  }

  /** The record if it has not expired by the chain's clock, as Sui's resolution rules say. */
  static live(ctx: RequestContext, record: NameRecord): NameRecordNode | null {
    return record.expirationTimestampMs > ctx.ledger.nowMs() ? new NameRecordNode(ctx, record) : null;
  }

  get domain(): string {
    return this.#record.name;
  }

  target(): AddressNode | null {
    return this.#record.targetAddress ? new AddressNode(this.#ctx, this.#record.targetAddress) : null;
  }

  parent(): NameRecordNode | null {
    const labels = this.#record.name.split('.');
    if (labels.length <= 2) return null;
    const parent = this.#ctx.ledger.lookupName(labels.slice(1).join('.'));
    return parent ? NameRecordNode.live(this.#ctx, parent) : null;
  }

  contents(): MoveValueNode {
    const data: { key: string; value: string }[] = [];
    if (this.#record.avatar) data.push({ key: 'avatar', value: this.#record.avatar });
    if (this.#record.contentHash) data.push({ key: 'content_hash', value: this.#record.contentHash });
    return new MoveValueNode(`${this.#record.registryId}::name_record::NameRecord`, null, {
      nft_id: this.#record.nftId,
      expiration_timestamp_ms: str(this.#record.expirationTimestampMs),
      target_address: this.#record.targetAddress ?? null,
      data: { contents: data },
    });
  }
}
