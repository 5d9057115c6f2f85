import type { CheckpointRecord } from '../../ledger/index.js';
import type { RequestContext } from '../context.js';
import { pageLimits } from '../limits.js';
import { pageFromArgs, paginate } from '../pagination.js';
import type { Connection, PageArgs } from '../pagination.js';
import { nodeId } from './node-id.js';
import { EpochNode } from './epoch.js';
import { gasCostSummary } from './gas.js';
import { transactionConnection } from './transaction-filters.js';
import type { TransactionFilterArgs } from './transaction-filters.js';

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

  get id(): string {
    return nodeId('Checkpoint', this.sequenceNumber);
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
    return gasCostSummary(this.#checkpoint.epochRollingGasCostSummary);
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
