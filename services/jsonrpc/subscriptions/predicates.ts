import { bcs } from '@mysten/sui/bcs';
import type { GrpcTypes } from '@mysten/sui/grpc';
import { normalizeStructTag, normalizeSuiAddress } from '@mysten/sui/utils';
import { FILTER_LIMITS, type FilterLimits } from '../../streams/index.js';
import { address } from '../methods/transactions/legacy-values.js';
import { JsonRpcError } from '../method.js';
import { u64Param } from '../params.js';
import { structTypeError } from '../struct-type.js';
import { FilterBudget, invalidFilter, variantOf } from './filter-budget.js';

/**
 * Subscription filters, evaluated in memory on each streamed transaction: unlike the List*
 * queries, a live stream can answer every variant of the document (Any, TimeRange, InputObject,
 * ChangedObject, TransactionKind included). Each filter is compiled once, at subscribe time,
 * within the shared filter limits (FILTER_LIMITS): values are normalized then, and an event
 * filter becomes sets looked up once per event, so the work per event does not grow with the
 * number of parts.
 */

export interface LegacyEvent {
  id: { txDigest: string; eventSeq: string };
  packageId: string;
  transactionModule: string;
  sender: string;
  type: string;
  timestampMs?: string;
}

/** An event as every subscription of a socket reads it: rendered and its type normalized once. */
export interface IndexedEvent {
  event: LegacyEvent;
  /** The event type, normalized. */
  type: string;
  /** `0xPACKAGE::module::` of the event type (MoveEventModule). */
  typeModule: string;
  /** `0xPACKAGE::module` of the call that emitted it (MoveModule). */
  emitModule: string;
  timestampMs: bigint | undefined;
}

function fullType(type: string): string {
  try {
    return normalizeStructTag(type);
  } catch {
    return type;
  }
}

export function indexEvent(event: LegacyEvent): IndexedEvent {
  const type = fullType(event.type);
  const [pkg = '', module = ''] = type.split('::');
  return {
    event, type, typeModule: `${pkg}::${module}::`, emitModule: `${event.packageId}::${event.transactionModule}`,
    timestampMs: event.timestampMs === undefined ? undefined : BigInt(event.timestampMs),
  };
}

export interface CompiledFilter<T> {
  matches(subject: T): boolean;
  /** What the filter holds, for the socket's and the organization's totals. */
  bytes: number;
  distinctValues: number;
}

/** An event filter as sets: `Any`/`All` of leaves is one union, so matching is a few lookups. */
class EventIndex {
  everything = false;
  readonly senders = new Set<string>();
  readonly digests = new Set<string>();
  readonly emitModules = new Set<string>();
  readonly types = new Set<string>();
  readonly typeModules = new Set<string>();
  readonly timeRanges: [bigint, bigint][] = [];

  matches(e: IndexedEvent): boolean {
    if (this.everything) return true;
    if (this.senders.has(e.event.sender) || this.digests.has(e.event.id.txDigest)) return true;
    if (this.emitModules.has(e.emitModule) || this.types.has(e.type) || this.typeModules.has(e.typeModule)) return true;
    const at = e.timestampMs;
    return at !== undefined && this.timeRanges.some(([start, end]) => at >= start && at < end);
  }
}

function text(value: unknown, what: string): string {
  if (typeof value !== 'string' || value === '') throw invalidFilter(`${what} must be a non-empty string`);
  return value;
}

function structTag(value: string, what: string): string {
  const error = structTypeError(value);
  if (error) throw invalidFilter(`${what}: ${error}`);
  return normalizeStructTag(value);
}

function moduleOf(value: unknown, variant: string): { package: string; module: string } {
  const v = value as { package?: unknown; module?: unknown } | null;
  if (!v || typeof v !== 'object') throw invalidFilter(`${variant} must be {package, module}`);
  return { package: normalizeSuiAddress(text(v.package, `${variant}.package`)), module: text(v.module, `${variant}.module`) };
}

function integer(value: unknown, what: string): bigint {
  try {
    return BigInt(text(value, what));
  } catch {
    throw invalidFilter(`${what} must be an integer string`);
  }
}

/** Compiles an `EventFilter` (throws -32602 for a malformed one or one past a limit). */
export function compileEventFilter(filter: unknown, limits: FilterLimits = FILTER_LIMITS): CompiledFilter<IndexedEvent> {
  const budget = new FilterBudget(filter, limits);
  const index = new EventIndex();
  const add = (set: Set<string>, key: string, kind: string) => {
    budget.value(`${kind}:${key}`);
    set.add(key);
  };
  const visit = (node: unknown, depth: number): void => {
    budget.part(depth);
    const [variant, value] = variantOf(node);
    switch (variant) {
      // `All` takes no filters (an empty list, the document's `maxItems: 0`): every event.
      case 'All':
        if (!Array.isArray(value) || value.length > 0) throw invalidFilter('All takes an empty list (it matches every event)');
        index.everything = true;
        return;
      case 'Any':
        if (!Array.isArray(value)) throw invalidFilter('Any must be a list of filters');
        for (const part of value) visit(part, depth + 1);
        return;
      case 'Sender': return add(index.senders, normalizeSuiAddress(text(value, 'Sender')), 'sender');
      case 'Transaction': return add(index.digests, text(value, 'Transaction'), 'transaction');
      case 'MoveModule': {
        const v = moduleOf(value, variant);
        return add(index.emitModules, `${v.package}::${v.module}`, 'emit');
      }
      case 'MoveEventType': return add(index.types, structTag(text(value, 'MoveEventType'), 'MoveEventType'), 'type');
      case 'MoveEventModule': {
        const v = moduleOf(value, variant);
        return add(index.typeModules, `${v.package}::${v.module}::`, 'typeModule');
      }
      case 'TimeRange': {
        const v = (value ?? {}) as { startTime?: unknown; endTime?: unknown };
        const range: [bigint, bigint] = [integer(v.startTime, 'TimeRange.startTime'), integer(v.endTime, 'TimeRange.endTime')];
        budget.value(`time:${range[0]}-${range[1]}`);
        index.timeRanges.push(range);
        return;
      }
      default: throw invalidFilter(`unknown event filter ${variant}`);
    }
  };
  visit(filter, 1);
  return { matches: (event) => index.matches(event), bytes: budget.bytes, distinctValues: budget.values.size };
}

const OUTPUT_DOES_NOT_EXIST = 1;

type TransactionData = ReturnType<typeof bcs.TransactionData.parse>['V1'];

/** Parsed once per transaction, whatever the number of subscriptions that read it. */
const parsedOnce = new WeakMap<GrpcTypes.ExecutedTransaction, TransactionData | undefined>();
const recipientsOnce = new WeakMap<GrpcTypes.ExecutedTransaction, Set<string>>();

function parsedData(tx: GrpcTypes.ExecutedTransaction): TransactionData | undefined {
  if (parsedOnce.has(tx)) return parsedOnce.get(tx);
  const bytes = tx.transaction?.bcs?.value;
  let parsed: TransactionData | undefined;
  try {
    parsed = bytes ? bcs.TransactionData.parse(bytes).V1 : undefined;
  } catch {
    parsed = undefined;
  }
  parsedOnce.set(tx, parsed);
  return parsed;
}

function recipients(tx: GrpcTypes.ExecutedTransaction): Set<string> {
  const known = recipientsOnce.get(tx);
  if (known) return known;
  const owners = new Set<string>();
  recipientsOnce.set(tx, owners);
  for (const change of tx.effects?.changedObjects ?? []) {
    if (change.outputOwner?.address && (change.outputOwner.kind === 1 || change.outputOwner.kind === 5)) owners.add(address(change.outputOwner.address));
  }
  for (const change of tx.balanceChanges) if (change.address) owners.add(address(change.address));
  return owners;
}

/** Compiles a `TransactionFilter` over v2 transactions read with the full read mask (-32602 when malformed or past a limit). */
export function compileTransactionFilter(filter: unknown, limits: FilterLimits = FILTER_LIMITS): CompiledFilter<GrpcTypes.ExecutedTransaction> {
  const budget = new FilterBudget(filter, limits);
  budget.part(1);
  const [variant, value] = variantOf(filter);
  const kinds = variant === 'TransactionKindIn' && Array.isArray(value) ? value : [value];
  for (const kind of kinds) {
    if (variant === 'TransactionKindIn') budget.part(2);
    budget.value(JSON.stringify(kind) ?? '');
  }
  let predicate: (tx: GrpcTypes.ExecutedTransaction) => boolean;
  try {
    predicate = transactionPredicate(variant, value);
  } catch (error) {
    // A value of the wrong shape (an address that is not a string, a missing package) is the caller's.
    if (error instanceof JsonRpcError) throw error;
    throw invalidFilter(`malformed ${variant} filter`);
  }
  return { matches: predicate, bytes: budget.bytes, distinctValues: budget.values.size };
}

function transactionPredicate(variant: string, value: unknown): (tx: GrpcTypes.ExecutedTransaction) => boolean {
  const senderOf = (tx: GrpcTypes.ExecutedTransaction) => parsedData(tx)?.sender;
  switch (variant) {
    case 'Checkpoint': {
      const checkpoint = u64Param(value, 'Checkpoint');
      return (tx) => tx.checkpoint === checkpoint;
    }
    case 'MoveFunction': {
      const v = value as { package: string; module?: string | null; function?: string | null };
      const pkg = normalizeSuiAddress(v.package);
      return (tx) => {
        const kind = parsedData(tx)?.kind;
        if (kind?.$kind !== 'ProgrammableTransaction') return false;
        return kind.ProgrammableTransaction.commands.some((c) => c.$kind === 'MoveCall'
          && normalizeSuiAddress(c.MoveCall.package) === pkg
          && (!v.module || c.MoveCall.module === v.module)
          && (!v.function || c.MoveCall.function === v.function));
      };
    }
    case 'InputObject': {
      const id = normalizeSuiAddress(String(value));
      return (tx) => {
        const kind = parsedData(tx)?.kind;
        if (kind?.$kind !== 'ProgrammableTransaction') return false;
        return kind.ProgrammableTransaction.inputs.some((input) => {
          if (input.$kind !== 'Object') return false;
          const o = input.Object;
          const ref = o.$kind === 'SharedObject' ? o.SharedObject : o.$kind === 'ImmOrOwnedObject' ? o.ImmOrOwnedObject : o.Receiving;
          return normalizeSuiAddress(ref.objectId) === id;
        });
      };
    }
    case 'ChangedObject': {
      const id = normalizeSuiAddress(String(value));
      // Created, mutated or unwrapped: the object exists after the transaction.
      return (tx) => (tx.effects?.changedObjects ?? []).some((c) => address(c.objectId) === id && c.outputState !== OUTPUT_DOES_NOT_EXIST);
    }
    case 'AffectedObject': {
      const id = normalizeSuiAddress(String(value));
      return (tx) => (tx.effects?.changedObjects ?? []).some((c) => address(c.objectId) === id);
    }
    case 'FromAddress': {
      const a = normalizeSuiAddress(String(value));
      return (tx) => senderOf(tx) === a;
    }
    case 'ToAddress': {
      const a = normalizeSuiAddress(String(value));
      return (tx) => recipients(tx).has(a);
    }
    case 'FromAndToAddress': {
      const v = value as { from: string; to: string };
      const from = normalizeSuiAddress(v.from);
      const to = normalizeSuiAddress(v.to);
      return (tx) => senderOf(tx) === from && recipients(tx).has(to);
    }
    case 'FromOrToAddress': {
      const a = normalizeSuiAddress((value as { addr: string }).addr);
      return (tx) => senderOf(tx) === a || recipients(tx).has(a);
    }
    case 'TransactionKind': return (tx) => parsedData(tx)?.kind.$kind === String(value);
    case 'TransactionKindIn': {
      if (!Array.isArray(value)) throw invalidFilter('TransactionKindIn must be a list of kinds');
      const kinds = new Set(value.map(String));
      return (tx) => kinds.has(parsedData(tx)?.kind.$kind ?? '');
    }
    default: throw invalidFilter(`unknown transaction filter ${variant}`);
  }
}
