import { bcs } from '@mysten/sui/bcs';
import type { GrpcTypes } from '@mysten/sui/grpc';
import { normalizeStructTag, normalizeSuiAddress } from '@mysten/sui/utils';
import { JSONRPC_ERROR, JsonRpcError } from '../../../method.js';
import { address } from '../legacy-values.js';
import { u64Param } from '../../../params.js';

/**
 * Subscription filters, evaluated in memory on each streamed transaction: unlike the List*
 * queries, a live stream can answer every variant of the document (Any, TimeRange, InputObject,
 * ChangedObject, TransactionKind included).
 */

export interface LegacyEvent {
  id: { txDigest: string; eventSeq: string };
  packageId: string;
  transactionModule: string;
  sender: string;
  type: string;
  timestampMs?: string;
}

function variantOf(filter: unknown): [string, unknown] {
  const entries = filter && typeof filter === 'object' ? Object.entries(filter) : [];
  if (entries.length !== 1) throw new JsonRpcError(JSONRPC_ERROR.invalidParams, 'Invalid params: a filter has exactly one variant');
  return entries[0] as [string, unknown];
}

function fullType(type: string): string {
  try {
    return normalizeStructTag(type);
  } catch {
    return type;
  }
}

/** Compiles an `EventFilter` (throws -32602 for a malformed one). */
export function eventPredicate(filter: unknown): (event: LegacyEvent) => boolean {
  const [variant, value] = variantOf(filter);
  switch (variant) {
    case 'All': return () => true;
    case 'Any': {
      const parts = (value as unknown[]).map(eventPredicate);
      return (event) => parts.some((p) => p(event));
    }
    case 'Sender': {
      const sender = normalizeSuiAddress(String(value));
      return (event) => event.sender === sender;
    }
    case 'Transaction': return (event) => event.id.txDigest === String(value);
    case 'MoveModule': {
      const v = value as { package: string; module: string };
      const pkg = normalizeSuiAddress(v.package);
      return (event) => event.packageId === pkg && event.transactionModule === v.module;
    }
    case 'MoveEventType': {
      const type = fullType(String(value));
      return (event) => fullType(event.type) === type;
    }
    case 'MoveEventModule': {
      const v = value as { package: string; module: string };
      const prefix = `${normalizeSuiAddress(v.package)}::${v.module}::`;
      return (event) => fullType(event.type).startsWith(prefix);
    }
    case 'TimeRange': {
      const v = value as { startTime: string; endTime: string };
      const start = u64Param(v.startTime, 'startTime');
      const end = u64Param(v.endTime, 'endTime');
      return (event) => event.timestampMs !== undefined && BigInt(event.timestampMs) >= start && BigInt(event.timestampMs) < end;
    }
    default: throw new JsonRpcError(JSONRPC_ERROR.invalidParams, `Invalid params: unknown event filter ${variant}`);
  }
}

const OUTPUT_DOES_NOT_EXIST = 1;

function parsedData(tx: GrpcTypes.ExecutedTransaction) {
  const bytes = tx.transaction?.bcs?.value;
  if (!bytes) return undefined;
  try {
    return bcs.TransactionData.parse(bytes).V1;
  } catch {
    return undefined;
  }
}

function recipients(tx: GrpcTypes.ExecutedTransaction): Set<string> {
  const owners = new Set<string>();
  for (const change of tx.effects?.changedObjects ?? []) {
    if (change.outputOwner?.address && (change.outputOwner.kind === 1 || change.outputOwner.kind === 5)) owners.add(address(change.outputOwner.address));
  }
  for (const change of tx.balanceChanges) if (change.address) owners.add(address(change.address));
  return owners;
}

/** Compiles a `TransactionFilter` over v2 transactions read with the full read mask. */
export function transactionPredicate(filter: unknown): (tx: GrpcTypes.ExecutedTransaction) => boolean {
  const [variant, value] = variantOf(filter);
  const senderOf = (tx: GrpcTypes.ExecutedTransaction) => parsedData(tx)?.sender;
  switch (variant) {
    case 'Checkpoint': return (tx) => tx.checkpoint !== undefined && tx.checkpoint.toString() === String(value);
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
      const kinds = new Set((value as unknown[]).map(String));
      return (tx) => kinds.has(parsedData(tx)?.kind.$kind ?? '');
    }
    default: throw new JsonRpcError(JSONRPC_ERROR.invalidParams, `Invalid params: unknown transaction filter ${variant}`);
  }
}
