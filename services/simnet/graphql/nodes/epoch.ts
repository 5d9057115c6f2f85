import { MOVE_STDLIB, SUI_FRAMEWORK, SUI_SYSTEM } from '../../ledger/constants.js';
import type { EpochRecord } from '../../ledger/index.js';
import type { RequestContext } from '../context.js';
import { pageLimits } from '../limits.js';
import { pageFromArgs, paginate } from '../pagination.js';
import type { Connection, PageArgs } from '../pagination.js';
import { nodeId } from './node-id.js';
import { checkpointConnection } from './checkpoint.js';
import type { CheckpointFilterArgs } from './checkpoint.js';
import { MoveValueNode } from './move.js';
import { PackageNode } from './objects.js';
import { systemStateJson, validatorJson, validatorSetJson } from './system-state-json.js';
import { transactionConnection } from './transaction-filters.js';
import type { TransactionFilterArgs } from './transaction-filters.js';

/** Which checkpoints an epoch spans on this chain (the current epoch runs to the latest one). */
function epochCheckpoints(ctx: RequestContext, epoch: EpochRecord): { first: bigint; last: bigint } | null {
  if (epoch.firstCheckpoint === undefined) return null;
  return { first: epoch.firstCheckpoint, last: epoch.lastCheckpoint ?? ctx.ledger.latestCheckpoint().sequenceNumber };
}

const SYSTEM_PACKAGES = [MOVE_STDLIB, SUI_FRAMEWORK, SUI_SYSTEM];

export class EpochNode {
  readonly __typename = 'Epoch';
  readonly #ctx: RequestContext;
  readonly #epoch: EpochRecord;

  constructor(ctx: RequestContext, epoch: EpochRecord) {
    this.#ctx = ctx;
    this.#epoch = epoch;
  }

  get id(): string {
    return nodeId('Epoch', this.epochId);
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

  /** The framework packages (0x1, 0x2, 0x3): simnet has one version of each, for every epoch. */
  systemPackages(args: PageArgs): Connection<PackageNode> {
    const packages = SYSTEM_PACKAGES.map((id) => PackageNode.forPackage(this.#ctx, id)).filter((p): p is PackageNode => p !== null);
    return paginate(packages, (p) => p.address, pageFromArgs(args, pageLimits('Epoch', 'systemPackages')));
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
