import { bcs } from '@mysten/sui/bcs';
import type { GrpcTypes } from '@mysten/sui/grpc';
import { toBase58 } from '@mysten/sui/utils';
import { changeKind, isPackageWrite, type ChangeKind } from '../../../upstream/index.js';
import { renderTransactionData } from './render-input.js';
import { address, base64, legacyOwner, legacyType, timestampMs, u64, valueToJson, type Json } from './legacy-values.js';

type Executed = GrpcTypes.ExecutedTransaction;
type Changed = GrpcTypes.ChangedObject;

/** `TransactionBlockResponseOptions`: every flag defaults to false. */
export interface ResponseOptions {
  showInput?: boolean;
  showRawInput?: boolean;
  showEffects?: boolean;
  showEvents?: boolean;
  showObjectChanges?: boolean;
  showBalanceChanges?: boolean;
  showRawEffects?: boolean;
}

const EFFECTS_FIELDS = [
  'effects.status', 'effects.epoch', 'effects.gas_used', 'effects.transaction_digest', 'effects.gas_object',
  'effects.events_digest', 'effects.dependencies', 'effects.lamport_version', 'effects.changed_objects',
  'effects.unchanged_consensus_objects',
];
const EVENT_FIELDS = ['events.events.package_id', 'events.events.module', 'events.events.sender', 'events.events.event_type', 'events.events.contents', 'events.events.json'];

/** The v2 read mask that fills exactly what `options` shows (and nothing more: BCS blobs cost bandwidth). */
export function readMaskFor(options: ResponseOptions): string[] {
  const paths = new Set(['digest', 'checkpoint', 'timestamp']);
  const add = (...fields: string[]) => fields.forEach((f) => paths.add(f));
  if (options.showInput || options.showRawInput) add('transaction.bcs', 'signatures.bcs');
  if (options.showEffects) add(...EFFECTS_FIELDS);
  if (options.showRawEffects) add('effects.bcs');
  if (options.showEvents) add(...EVENT_FIELDS);
  if (options.showObjectChanges) add('transaction.sender', 'effects.changed_objects', 'effects.lamport_version');
  if (options.showBalanceChanges) add('balance_changes');
  return [...paths];
}

/** Everything a rendering might need: subscriptions and execution render several option sets from one read. */
export const FULL_READ_MASK = readMaskFor({
  showInput: true, showRawInput: true, showEffects: true, showEvents: true, showObjectChanges: true, showBalanceChanges: true, showRawEffects: true,
});

// A node writes the refs of deleted and wrapped objects with these marker digests (Rust `ObjectDigest::OBJECT_DIGEST_*`).
const DELETED_DIGEST = toBase58(new Uint8Array(32).fill(99));
const WRAPPED_DIGEST = toBase58(new Uint8Array(32).fill(88));

const INPUT_EXISTS = 2;
const OWNER_SHARED = 3;
const UNCHANGED_READ_ONLY_ROOT = 1;

function ownedRef(change: Changed | undefined): Json {
  return {
    owner: legacyOwner(change?.outputOwner),
    reference: { objectId: address(change?.objectId), version: u64(change?.outputVersion), digest: change?.outputDigest ?? '' },
  };
}

function goneRef(change: Changed, lamport: string, digest: string): Json {
  return { objectId: address(change.objectId), version: lamport, digest };
}

function executionStatus(status: GrpcTypes.ExecutionStatus | undefined): Json {
  if (status?.success !== false) return { status: 'success' };
  return { status: 'failure', error: status.error?.description ?? 'execution failed' };
}

const MOVE_ABORT = 13; // GrpcTypes.ExecutionError_ExecutionErrorKind.MOVE_ABORT

/**
 * A node's `abortError` (`SuiMoveAbort::new`): the module as its canonical string (full address),
 * the function, and the code, or for a clever error its inner code and line. The SDK reads it to
 * report a MoveAbort with its code instead of an unknown failure.
 */
function abortError(status: GrpcTypes.ExecutionStatus | undefined): Json | undefined {
  const error = status?.error;
  const details = error?.errorDetails;
  if (status?.success !== false || error?.kind !== MOVE_ABORT || details?.oneofKind !== 'abort') return undefined;
  const abort = details.abort;
  const location = abort.location;
  const clever = abort.cleverError;
  const code = clever ? clever.errorCode : abort.abortCode;
  return {
    ...(location?.package && location.module ? { module_id: `${address(location.package)}::${location.module}` } : {}),
    ...(location?.functionName ? { function: location.functionName } : {}),
    ...(clever?.lineNumber !== undefined ? { line: Number(clever.lineNumber) } : {}),
    ...(code !== undefined ? { error_code: Number(code) } : {}),
  };
}

/** The legacy `TransactionBlockEffects` (v1 message shape) from v2 effects fields. */
export function renderEffects(effects: GrpcTypes.TransactionEffects | undefined, digest: string): Json {
  const changes = effects?.changedObjects ?? [];
  const lamport = u64(effects?.lamportVersion);
  const by = (kind: ChangeKind) => changes.filter((c) => changeKind(c) === kind);
  const gas = effects?.gasUsed;
  const shared = [
    ...changes.filter((c) => c.inputOwner?.kind === OWNER_SHARED && c.inputState === INPUT_EXISTS)
      .map((c) => ({ objectId: address(c.objectId), version: u64(c.inputVersion), digest: c.inputDigest ?? '' })),
    ...(effects?.unchangedConsensusObjects ?? []).filter((u) => u.kind === UNCHANGED_READ_ONLY_ROOT)
      .map((u) => ({ objectId: address(u.objectId), version: u64(u.version), digest: u.digest ?? '' })),
  ];
  const result: Record<string, Json> = {
    messageVersion: 'v1',
    status: executionStatus(effects?.status),
    executedEpoch: u64(effects?.epoch),
    gasUsed: {
      computationCost: u64(gas?.computationCost), storageCost: u64(gas?.storageCost),
      storageRebate: u64(gas?.storageRebate), nonRefundableStorageFee: u64(gas?.nonRefundableStorageFee),
    },
    modifiedAtVersions: changes.filter((c) => c.inputState === INPUT_EXISTS && changeKind(c) !== 'accumulator')
      .map((c) => ({ objectId: address(c.objectId), sequenceNumber: u64(c.inputVersion) })),
    sharedObjects: shared,
    transactionDigest: effects?.transactionDigest ?? digest,
    created: by('created').map(ownedRef),
    mutated: by('mutated').map(ownedRef),
    unwrapped: by('unwrapped').map(ownedRef),
    deleted: by('deleted').map((c) => goneRef(c, lamport, DELETED_DIGEST)),
    unwrappedThenDeleted: by('unwrappedThenDeleted').map((c) => goneRef(c, lamport, DELETED_DIGEST)),
    wrapped: by('wrapped').map((c) => goneRef(c, lamport, WRAPPED_DIGEST)),
    gasObject: ownedRef(effects?.gasObject),
    dependencies: effects?.dependencies ?? [],
  };
  if (effects?.eventsDigest) result.eventsDigest = effects.eventsDigest;
  const aborted = abortError(effects?.status);
  if (aborted !== undefined) result.abortError = aborted;
  // A node leaves empty lists out of effects (serde skip_serializing_if = Vec::is_empty).
  for (const key of ['created', 'mutated', 'unwrapped', 'deleted', 'unwrappedThenDeleted', 'wrapped', 'sharedObjects', 'dependencies', 'modifiedAtVersions']) {
    if (Array.isArray(result[key]) && (result[key] as Json[]).length === 0) delete result[key];
  }
  return result;
}

/** One legacy `Event`. `eventSeq` is the event's index within its transaction, as on a node. */
export function renderEvent(event: GrpcTypes.Event, txDigest: string, eventSeq: number, timestamp: string | null): Json {
  return {
    id: { txDigest, eventSeq: String(eventSeq) },
    packageId: address(event.packageId),
    transactionModule: event.module ?? '',
    sender: address(event.sender),
    type: legacyType(event.eventType),
    parsedJson: valueToJson(event.json),
    bcsEncoding: 'base64',
    bcs: base64(event.contents?.value),
    ...(timestamp !== null ? { timestampMs: timestamp } : {}),
  };
}

function objectChanges(tx: Executed): Json[] {
  const sender = address(tx.transaction?.sender);
  const changes = tx.effects?.changedObjects ?? [];
  const lamport = u64(tx.effects?.lamportVersion);
  const out: Json[] = [];
  for (const change of changes) {
    const kind = changeKind(change);
    const objectId = address(change.objectId);
    const objectType = legacyType(change.objectType);
    if (isPackageWrite(change) && kind === 'created') {
      // Module names are in the package's contents, which effects do not carry.
      out.push({ type: 'published', packageId: objectId, version: u64(change.outputVersion), digest: change.outputDigest ?? '', modules: [] });
      continue;
    }
    switch (kind) {
      case 'created':
      case 'unwrapped':
        // A node reports an unwrapped object as created (its `ObjectChange` has no unwrapped kind).
        out.push({ type: 'created', sender, owner: legacyOwner(change.outputOwner), objectType, objectId, version: u64(change.outputVersion), digest: change.outputDigest ?? '' });
        break;
      case 'mutated':
        out.push({
          type: 'mutated', sender, owner: legacyOwner(change.outputOwner), objectType, objectId,
          version: u64(change.outputVersion), previousVersion: u64(change.inputVersion), digest: change.outputDigest ?? '',
        });
        break;
      case 'deleted':
        out.push({ type: 'deleted', sender, objectType, objectId, version: lamport });
        break;
      case 'wrapped':
        out.push({ type: 'wrapped', sender, objectType, objectId, version: lamport });
        break;
      default:
        break;
    }
  }
  return out;
}

function balanceChanges(tx: Executed): Json[] {
  return tx.balanceChanges.map((change) => ({
    owner: { AddressOwner: address(change.address) },
    coinType: legacyType(change.coinType),
    amount: change.amount ?? '0',
  }));
}

/** `SenderSignedData` BCS: what a node returns as `rawTransaction`. */
function rawTransaction(txBcs: Uint8Array, signatures: Uint8Array[]): string {
  const bytes = bcs.SenderSignedData.serialize([{
    intentMessage: { intent: { scope: { TransactionData: true }, version: { V0: true }, appId: { Sui: true } }, value: bcs.TransactionData.parse(txBcs) },
    txSignatures: signatures,
  }]).toBytes();
  return base64(bytes);
}

export interface RenderExtras {
  /** Execution answers: whether the node has executed it locally (WaitForLocalExecution). */
  confirmedLocalExecution?: boolean;
  /** Execution answers have no checkpoint yet; read answers do. */
  omitCheckpoint?: boolean;
}

/** One legacy `TransactionBlockResponse`, showing exactly what `options` asks for. */
export function renderTransactionResponse(tx: Executed, options: ResponseOptions, extras: RenderExtras = {}): Json {
  const digest = tx.digest ?? '';
  const timestamp = timestampMs(tx.timestamp);
  const response: Record<string, Json> = { digest };
  const txBcs = tx.transaction?.bcs?.value;
  const signatures = tx.signatures.map((s) => s.bcs?.value ?? new Uint8Array());
  if (options.showInput) {
    // txSignatures travel as base64 strings (the document's GenericSignature object is not the wire form).
    response.transaction = txBcs ? { data: renderTransactionData(txBcs), txSignatures: signatures.map(base64) } : null;
  }
  if (options.showRawInput) response.rawTransaction = txBcs ? rawTransaction(txBcs, signatures) : '';
  if (options.showEffects) response.effects = tx.effects ? renderEffects(tx.effects, digest) : null;
  if (options.showRawEffects) response.rawEffects = [...(tx.effects?.bcs?.value ?? [])];
  if (options.showEvents) response.events = (tx.events?.events ?? []).map((e, i) => renderEvent(e, digest, i, timestamp));
  if (options.showObjectChanges) response.objectChanges = objectChanges(tx);
  if (options.showBalanceChanges) response.balanceChanges = balanceChanges(tx);
  if (timestamp !== null) response.timestampMs = timestamp;
  if (extras.confirmedLocalExecution !== undefined) response.confirmedLocalExecution = extras.confirmedLocalExecution;
  if (!extras.omitCheckpoint && tx.checkpoint !== undefined) response.checkpoint = u64(tx.checkpoint);
  return response;
}

export { objectChanges as renderObjectChanges, balanceChanges as renderBalanceChanges };
