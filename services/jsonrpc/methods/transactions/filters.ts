import type { GrpcTypes } from '@mysten/sui/grpc';
import { normalizeSuiAddress } from '@mysten/sui/utils';
import { JSONRPC_ERROR, JsonRpcError } from '../../method.js';
import { u64Param } from '../../params.js';
import { structTypeParam } from '../../struct-type.js';

/**
 * The legacy `TransactionFilter` / `EventFilter` as v2 ListTransactions / ListEvents DNF filters.
 * A filter v2 cannot express exactly is -32602 with `data.code = 'UNSUPPORTED_FILTER'` (listed in
 * docs/jsonrpc.md), never an approximation that would silently return other rows.
 * (Subscriptions evaluate filters in memory instead: see subscriptions/predicates.ts.)
 */

type TxLiteral = GrpcTypes.TransactionLiteral;
type EventLiteral = GrpcTypes.EventLiteral;

export function unsupportedFilter(variant: string, why: string): JsonRpcError {
  return new JsonRpcError(JSONRPC_ERROR.invalidParams, `Invalid params: filter ${variant} is not supported by this gateway: ${why}`, { code: 'UNSUPPORTED_FILTER', filter: variant });
}

const lit = <P>(predicate: P): { negated: false; predicate: P } => ({ negated: false, predicate });

function movePath(pkg: string, module?: string | null, fn?: string | null): string {
  const parts = [normalizeSuiAddress(pkg)];
  if (module) parts.push(module);
  if (module && fn) parts.push(fn);
  return parts.join('::');
}

export interface TransactionQuery {
  filter?: GrpcTypes.TransactionFilter;
  startCheckpoint?: bigint;
  endCheckpoint?: bigint;
}

function variantOf(filter: object): [string, unknown] {
  const entries = Object.entries(filter);
  if (entries.length !== 1) throw new JsonRpcError(JSONRPC_ERROR.invalidParams, 'Invalid params: a filter has exactly one variant');
  return entries[0] as [string, unknown];
}

export function transactionQuery(filter: Record<string, unknown> | null | undefined): TransactionQuery {
  if (!filter) return {};
  const [variant, value] = variantOf(filter);
  const terms = (...literals: TxLiteral[][]): TransactionQuery => ({ filter: { terms: literals.map((l) => ({ literals: l })) } });
  const sender = (a: unknown): TxLiteral => lit({ oneofKind: 'sender' as const, sender: { address: normalizeSuiAddress(String(a)) } });
  const affected = (a: unknown): TxLiteral => lit({ oneofKind: 'affectedAddress' as const, affectedAddress: { address: normalizeSuiAddress(String(a)) } });
  switch (variant) {
    case 'Checkpoint': {
      const n = u64Param(value, 'Checkpoint');
      return { startCheckpoint: n, endCheckpoint: n + 1n };
    }
    case 'MoveFunction': {
      const v = value as { package: string; module?: string | null; function?: string | null };
      // A node refuses it (its index is keyed package, module, function): dropping the function
      // would answer every call into the package.
      if (v.function && !v.module) throw new JsonRpcError(JSONRPC_ERROR.invalidParams, 'Invalid params: Cannot supply function without supplying module');
      return terms([lit({ oneofKind: 'moveCall' as const, moveCall: { function: movePath(v.package, v.module, v.function) } })]);
    }
    case 'AffectedObject':
      return terms([lit({ oneofKind: 'affectedObject' as const, affectedObject: { objectId: normalizeSuiAddress(String(value)) } })]);
    case 'FromAddress': return terms([sender(value)]);
    // v2's affected address is every address whose objects or balance the transaction moved: the recipients.
    case 'ToAddress': return terms([affected(value)]);
    case 'FromAndToAddress': {
      const v = value as { from: string; to: string };
      return terms([sender(v.from), affected(v.to)]);
    }
    case 'FromOrToAddress': {
      const v = value as { addr: string };
      return terms([sender(v.addr)], [affected(v.addr)]);
    }
    case 'InputObject':
    case 'ChangedObject':
      throw unsupportedFilter(variant, 'v2 indexes the objects a transaction affected, not its inputs or changes alone; use AffectedObject');
    case 'TransactionKind':
    case 'TransactionKindIn':
      throw unsupportedFilter(variant, 'v2 does not index transactions by kind');
    default:
      throw unsupportedFilter(variant, 'unknown filter');
  }
}

export type EventQuery =
  | { kind: 'list'; filter?: GrpcTypes.EventFilter }
  | { kind: 'transaction'; digest: string };

function eventTerms(filter: Record<string, unknown>): EventLiteral[][] {
  const [variant, value] = variantOf(filter);
  switch (variant) {
    case 'All': return [[]];
    case 'Any': {
      const any = value as Record<string, unknown>[];
      const terms = any.flatMap((f) => eventTerms(f));
      if (terms.some((t) => t.length === 0)) return [[]];
      return terms;
    }
    case 'Sender': return [[lit({ oneofKind: 'sender' as const, sender: { address: normalizeSuiAddress(String(value)) } })]];
    // The module a transaction called to emit the event: v2's emit module (the event's package/module fields).
    case 'MoveModule': {
      const v = value as { package: string; module: string };
      return [[lit({ oneofKind: 'emitModule' as const, emitModule: { module: movePath(v.package, v.module) } })]];
    }
    case 'MoveEventType': return [[lit({ oneofKind: 'eventType' as const, eventType: { eventType: structTypeParam(String(value)) } })]];
    // The module that defines the event type: a prefix of the event type.
    case 'MoveEventModule': {
      const v = value as { package: string; module: string };
      return [[lit({ oneofKind: 'eventType' as const, eventType: { eventType: movePath(v.package, v.module) } })]];
    }
    case 'Transaction': throw unsupportedFilter('Transaction', 'it cannot be combined inside Any');
    case 'TimeRange': throw unsupportedFilter('TimeRange', 'v2 indexes events by checkpoint, not by time');
    default: throw unsupportedFilter(variant, 'unknown filter');
  }
}

export function eventQuery(filter: Record<string, unknown>): EventQuery {
  const [variant, value] = variantOf(filter);
  if (variant === 'Transaction') return { kind: 'transaction', digest: String(value) };
  const terms = eventTerms(filter);
  if (terms.some((t) => t.length === 0)) return { kind: 'list' };
  return { kind: 'list', filter: { terms: terms.map((literals) => ({ literals })) } };
}
