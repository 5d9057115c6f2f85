import { bcs } from '@mysten/sui/bcs';
import { normalizeSuiAddress } from '@mysten/sui/utils';
import type { EventRecord, ExecutionFailure, TransactionRecord } from '../../ledger/index.js';
import { readAll } from '../context.js';
import type { RequestContext } from '../context.js';
import { badUserInput } from '../errors.js';
import { balanceChangeJson, effectsJson, transactionJson } from '../grpc-json.js';
import { pageLimits } from '../limits.js';
import { emptyConnection, pageFromArgs, paginate } from '../pagination.js';
import type { Connection, PageArgs, PageLimits } from '../pagination.js';
import { CheckpointNode, EpochNode } from './chain.js';
import { MoveModuleNode, MoveTypeNode, MoveValueNode } from './move.js';
import { AddressNode, ObjectNode, isTombstone } from './objects.js';

export interface TransactionFilterArgs {
  affectedAddress?: string | null;
  affectedObject?: string | null;
  afterCheckpoint?: number | null;
  atCheckpoint?: number | null;
  beforeCheckpoint?: number | null;
  function?: string | null;
  kind?: 'SYSTEM_TX' | 'PROGRAMMABLE_TX' | null;
  sentAddress?: string | null;
}

type ParsedTransaction = ReturnType<typeof bcs.TransactionData.parse>;
const parsed = new WeakMap<TransactionRecord, ParsedTransaction>();

/** The record's `TransactionData`, decoded once per record. */
export function parseTransaction(tx: TransactionRecord): ParsedTransaction {
  let data = parsed.get(tx);
  if (!data) {
    data = bcs.TransactionData.parse(tx.bcs);
    parsed.set(tx, data);
  }
  return data;
}

function moveCalls(tx: TransactionRecord): { package: string; module: string; function: string }[] {
  const kind = parseTransaction(tx).V1.kind;
  const ptb = kind.ProgrammableTransaction ?? kind.ProgrammableSystemTransaction;
  if (!ptb) return [];
  return ptb.commands.flatMap((command) => (command.MoveCall ? [command.MoveCall] : []));
}

/** `0xP`, `0xP::m` or `0xP::m::f`, as Sui's `function` filter takes it. */
function functionMatcher(filter: string): (tx: TransactionRecord) => boolean {
  const [pkg, module, fn, ...rest] = filter.split('::');
  if (!pkg || !/^0x[0-9a-fA-F]{1,64}$/.test(pkg) || rest.length > 0) throw badUserInput(`Invalid function filter: ${filter}`);
  const packageId = normalizeSuiAddress(pkg);
  return (tx) =>
    moveCalls(tx).some(
      (call) => normalizeSuiAddress(call.package) === packageId && (module === undefined || call.module === module) && (fn === undefined || call.function === fn),
    );
}

/** Sealed transactions matching Sui's `TransactionFilter`, in chain order. */
export function filterTransactions(ctx: RequestContext, filter: TransactionFilterArgs): TransactionRecord[] {
  const ledgerFilter = {
    sender: filter.sentAddress ?? undefined,
    affectedAddress: filter.affectedAddress ?? undefined,
    affectedObject: filter.affectedObject ?? undefined,
    checkpoint: filter.atCheckpoint != null ? BigInt(filter.atCheckpoint) : undefined,
  };
  const matchesFunction = filter.function ? functionMatcher(filter.function) : () => true;
  const after = filter.afterCheckpoint;
  const before = filter.beforeCheckpoint;
  return readAll((page) => ctx.ledger.listTransactions(ledgerFilter, page)).filter(
    (tx) =>
      (after == null || Number(tx.checkpoint) > after) &&
      (before == null || Number(tx.checkpoint) < before) &&
      (filter.kind == null || (filter.kind === 'PROGRAMMABLE_TX') === (tx.kind === 'programmable')) &&
      matchesFunction(tx),
  );
}

export function transactionConnection(ctx: RequestContext, filter: TransactionFilterArgs, args: PageArgs, limits: PageLimits): Connection<TransactionNode> {
  const page = pageFromArgs(args, limits);
  const keyed = filterTransactions(ctx, filter).flatMap((tx) => {
    const sequence = ctx.transactionSequence(tx);
    return sequence === undefined ? [] : [{ tx, sequence }];
  });
  return paginate(keyed, (k) => k.sequence, page, (k) => new TransactionNode(ctx, k.tx));
}

export interface EventFilterArgs {
  afterCheckpoint?: number | null;
  atCheckpoint?: number | null;
  beforeCheckpoint?: number | null;
  module?: string | null;
  sender?: string | null;
  type?: string | null;
}

export function eventConnection(ctx: RequestContext, filter: EventFilterArgs, args: PageArgs): Connection<EventNode> {
  const page = pageFromArgs(args, pageLimits('Query', 'events'));
  const [modulePackage, moduleName, ...extra] = filter.module?.split('::') ?? [];
  if (filter.module && (extra.length > 0 || !/^0x[0-9a-fA-F]{1,64}$/.test(modulePackage ?? ''))) {
    throw badUserInput(`Invalid module filter: ${filter.module}`);
  }
  const ledgerFilter = {
    sender: filter.sender ?? undefined,
    type: filter.type ?? undefined,
    emittingModule: moduleName !== undefined ? filter.module! : undefined,
    checkpoint: filter.atCheckpoint != null ? BigInt(filter.atCheckpoint) : undefined,
  };
  const packageId = modulePackage ? normalizeSuiAddress(modulePackage) : undefined;
  const keyed = readAll((p) => ctx.ledger.listEvents(ledgerFilter, p)).flatMap((event) => {
    const checkpoint = Number(event.checkpoint);
    if (filter.afterCheckpoint != null && !(checkpoint > filter.afterCheckpoint)) return [];
    if (filter.beforeCheckpoint != null && !(checkpoint < filter.beforeCheckpoint)) return [];
    if (packageId !== undefined && event.packageId !== packageId) return [];
    const key = ctx.eventKey(event);
    return key ? [{ event, key }] : [];
  });
  return paginate(keyed, (k) => k.key, page, (k) => new EventNode(ctx, k.event));
}

export class TransactionNode {
  readonly __typename = 'Transaction';
  readonly #ctx: RequestContext;
  readonly digest: string;

  constructor(
    ctx: RequestContext,
    readonly record: TransactionRecord,
  ) {
    this.#ctx = ctx;
    this.digest = record.digest;
  }

  sender(): AddressNode {
    return new AddressNode(this.#ctx, this.record.sender);
  }

  signatures() {
    return this.record.signatures.map((signature) => ({ __typename: 'UserSignature', signatureBytes: signature.bytes }));
  }

  get transactionBcs(): Uint8Array {
    return this.record.bcs;
  }

  transactionJson(): unknown {
    return transactionJson(this.record, parseTransaction(this.record));
  }

  effects(): EffectsNode {
    return new EffectsNode(this.#ctx, this.record);
  }

  gasInput() {
    const ctx = this.#ctx;
    const tx = this.record;
    return {
      __typename: 'GasInput',
      gasBudget: tx.gasBudget,
      gasPrice: tx.gasPrice,
      gasSponsor: new AddressNode(ctx, tx.gasOwner),
      gasPayment(args: PageArgs): Connection<ObjectNode> {
        const objects = tx.gasPayment.flatMap((ref, index) => {
          const record = ctx.ledger.getObjectAtVersion(ref.objectId, ref.version);
          return record && !isTombstone(record) ? [{ index, record }] : [];
        });
        return paginate(objects, (o) => o.index, pageFromArgs(args, pageLimits('GasInput', 'gasPayment')), (o) => ObjectNode.of(ctx, o.record, 'Object'));
      },
    };
  }

  expiration(): EpochNode | null {
    const expiration = parseTransaction(this.record).V1.expiration;
    if (expiration.Epoch == null) return null;
    const epoch = this.#ctx.ledger.getEpoch(BigInt(expiration.Epoch));
    return epoch ? new EpochNode(this.#ctx, epoch) : null;
  }

  kind(): object {
    return { __typename: this.record.kind === 'genesis' ? 'GenesisTransaction' : 'ProgrammableTransaction' };
  }
}

function ordinal(n: number): string {
  const suffix = n % 100 >= 11 && n % 100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

function executionError(ctx: RequestContext, failure: ExecutionFailure) {
  const where = failure.command !== undefined ? ` in ${ordinal(failure.command + 1)} command.` : '';
  const abort = failure.abort;
  return {
    __typename: 'ExecutionError',
    message: `${failure.description}${where}`,
    abortCode: abort ? abort.code : null,
    identifier: null,
    constant: null,
    sourceLineNumber: null,
    instructionOffset: null,
    module: abort ? new MoveModuleNode(ctx, abort.packageId, abort.module) : null,
    function: abort
      ? { __typename: 'MoveFunction', name: abort.functionName, fullyQualifiedName: `${abort.packageId}::${abort.module}::${abort.functionName}` }
      : null,
  };
}

const gasSummary = (gas: TransactionRecord['effects']['gasUsed']) => ({
  __typename: 'GasCostSummary',
  computationCost: Number(gas.computationCost),
  storageCost: Number(gas.storageCost),
  storageRebate: Number(gas.storageRebate),
  nonRefundableStorageFee: Number(gas.nonRefundableStorageFee),
});

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
      gasSummary: gasSummary(effects.gasUsed),
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

export class EventNode {
  readonly __typename = 'Event';
  readonly #ctx: RequestContext;
  readonly #event: EventRecord;

  constructor(ctx: RequestContext, event: EventRecord) {
    this.#ctx = ctx;
    this.#event = event;
  }

  get sequenceNumber(): number {
    return this.#event.eventIndex;
  }

  get timestamp(): bigint | null {
    return this.#event.timestampMs ?? null;
  }

  contents(): MoveValueNode {
    return new MoveValueNode(this.#event.type, this.#event.contents, this.#event.json);
  }

  sender(): AddressNode {
    return new AddressNode(this.#ctx, this.#event.sender);
  }

  transaction(): TransactionNode | null {
    const tx = this.#ctx.ledger.getTransaction(this.#event.transactionDigest);
    return tx ? new TransactionNode(this.#ctx, tx) : null;
  }

  transactionModule(): MoveModuleNode {
    return new MoveModuleNode(this.#ctx, this.#event.packageId, this.#event.module);
  }
}
