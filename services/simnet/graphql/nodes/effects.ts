import type { ExecutionFailure, TransactionRecord } from '../../ledger/index.js';
import type { RequestContext } from '../context.js';
import { balanceChangeJson, effectsJson } from '../grpc-json.js';
import { pageLimits } from '../limits.js';
import { emptyConnection, pageFromArgs, paginate } from '../pagination.js';
import type { Connection, PageArgs } from '../pagination.js';
import { CheckpointNode } from './checkpoint.js';
import { EpochNode } from './epoch.js';
import { EventNode } from './event.js';
import { gasCostSummary } from './gas.js';
import { MoveModuleNode, MoveTypeNode } from './move.js';
import { AddressNode, ObjectNode, isTombstone } from './objects.js';
import { TransactionNode } from './transaction.js';

function ordinal(n: number): string {
  const suffix = n % 100 >= 11 && n % 100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

function executionError(ctx: RequestContext, failure: ExecutionFailure) {
  const where = failure.command !== undefined ? ` in ${ordinal(failure.command + 1)} command.` : '';
  const abort = failure.abort;
  const module = abort && new MoveModuleNode(ctx, abort.packageId, abort.module);
  return {
    __typename: 'ExecutionError',
    message: `${failure.description}${where}`,
    abortCode: abort ? abort.code : null,
    identifier: null,
    constant: null,
    sourceLineNumber: null,
    instructionOffset: null,
    module: module ?? null,
    function: module ? module.calledFunction(abort.functionName) : null,
  };
}

export class EffectsNode {
  readonly __typename = 'TransactionEffects';
  readonly #ctx: RequestContext;
  readonly #tx: TransactionRecord;

  constructor(ctx: RequestContext, tx: TransactionRecord) {
    this.#ctx = ctx;
    this.#tx = tx;
  }

  get digest(): string {
    return this.#tx.digest;
  }

  /** simnet writes `TransactionEffects::V2`. */
  get version(): number {
    return 2;
  }

  /** simnet's executor records none (the effects' BCS lists none either). */
  unchangedConsensusObjects(args: PageArgs): Connection<never> {
    pageFromArgs(args, pageLimits('TransactionEffects', 'unchangedConsensusObjects'));
    return emptyConnection();
  }

  get effectsDigest(): string {
    return this.#tx.effects.digest;
  }

  get effectsBcs(): Uint8Array {
    return this.#tx.effects.bcs;
  }

  get status(): 'SUCCESS' | 'FAILURE' {
    return this.#tx.effects.status.success ? 'SUCCESS' : 'FAILURE';
  }

  get lamportVersion(): number {
    return Number(this.#tx.effects.lamportVersion);
  }

  get timestamp(): bigint | null {
    return this.#tx.timestampMs ?? null;
  }

  executionError() {
    const status = this.#tx.effects.status;
    return status.success ? null : executionError(this.#ctx, status.failure);
  }

  checkpoint(): CheckpointNode | null {
    const checkpoint = this.#tx.checkpoint !== undefined ? this.#ctx.ledger.getCheckpoint(this.#tx.checkpoint) : undefined;
    return checkpoint ? new CheckpointNode(this.#ctx, checkpoint) : null;
  }

  epoch(): EpochNode | null {
    const epoch = this.#ctx.ledger.getEpoch(this.#tx.effects.epoch);
    return epoch ? new EpochNode(this.#ctx, epoch) : null;
  }

  transaction(): TransactionNode {
    return new TransactionNode(this.#ctx, this.#tx);
  }

  effectsJson(): unknown {
    return effectsJson(this.#tx);
  }

  balanceChangesJson(): unknown {
    return this.#tx.balanceChanges.map(balanceChangeJson);
  }

  balanceChanges(args: PageArgs) {
    const ctx = this.#ctx;
    const changes = this.#tx.balanceChanges.map((change, index) => ({ change, index }));
    return paginate(changes, (c) => c.index, pageFromArgs(args, pageLimits('TransactionEffects', 'balanceChanges')), ({ change }) => ({
      __typename: 'BalanceChange',
      owner: new AddressNode(ctx, change.address),
      coinType: new MoveTypeNode(change.coinType),
      amount: change.amount,
    }));
  }

  objectChanges(args: PageArgs) {
    const ctx = this.#ctx;
    const objectAt = (id: string, version: bigint | undefined) => {
      const record = version === undefined ? undefined : ctx.ledger.getObjectAtVersion(id, version);
      return record && !isTombstone(record) ? ObjectNode.of(ctx, record, 'Object') : null;
    };
    const changes = this.#tx.effects.changedObjects.map((change, index) => ({ change, index }));
    return paginate(changes, (c) => c.index, pageFromArgs(args, pageLimits('TransactionEffects', 'objectChanges')), ({ change }) => ({
      __typename: 'ObjectChange',
      address: change.objectId,
      idCreated: change.idOperation === 'created',
      idDeleted: change.idOperation === 'deleted',
      inputState: () => objectAt(change.objectId, change.input?.version),
      outputState: () => objectAt(change.objectId, change.output?.version),
    }));
  }

  events(args: PageArgs): Connection<EventNode> {
    const ctx = this.#ctx;
    return paginate(this.#tx.events, (e) => e.eventIndex, pageFromArgs(args, pageLimits('TransactionEffects', 'events')), (e) => new EventNode(ctx, e));
  }

  gasEffects() {
    const ctx = this.#ctx;
    const effects = this.#tx.effects;
    const gasChange = effects.changedObjects.find((change) => change.objectId === effects.gasObjectId);
    return {
      __typename: 'GasEffects',
      gasSummary: gasCostSummary(effects.gasUsed),
      gasObject: () => {
        if (!gasChange?.output) return null;
        const record = ctx.ledger.getObjectAtVersion(gasChange.objectId, gasChange.output.version);
        return record && !isTombstone(record) ? ObjectNode.of(ctx, record, 'Object') : null;
      },
    };
  }

  dependencies(args: PageArgs): Connection<TransactionNode> {
    const ctx = this.#ctx;
    const deps = this.#tx.effects.dependencies.flatMap((digest, index) => {
      const tx = ctx.ledger.getTransaction(digest);
      return tx ? [{ tx, index }] : [];
    });
    if (deps.length === 0) return emptyConnection();
    return paginate(deps, (d) => d.index, pageFromArgs(args, pageLimits('TransactionEffects', 'dependencies')), (d) => new TransactionNode(ctx, d.tx));
  }
}
