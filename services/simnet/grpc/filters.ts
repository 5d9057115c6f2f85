import { GrpcTypes } from '@mysten/sui/grpc';
import { normalizeSuiAddress } from '@mysten/sui/utils';
import { typeFilterMatcher } from '../ledger/index.js';
import type { EventRecord, TransactionRecord } from '../ledger/index.js';
import { invalidArgument } from './errors.js';

function moduleMatcher(filter: string): (packageId: string, module: string) => boolean {
  const [pkg, module] = filter.split('::');
  if (!pkg) throw invalidArgument(`invalid module filter: ${filter}`);
  const packageId = normalizeSuiAddress(pkg);
  return (candidatePackage, candidateModule) => candidatePackage === packageId && (module === undefined || candidateModule === module);
}

type Predicate<T> = (item: T) => boolean;

function dnf<T, L extends { negated: boolean }>(terms: { literals: L[] }[], literal: (literal: L) => Predicate<T>): Predicate<T> {
  if (terms.length === 0) return () => true;
  const compiled = terms.map((term) => term.literals.map((entry) => ({ negated: entry.negated, test: literal(entry) })));
  return (item) => compiled.some((term) => term.every(({ negated, test }) => test(item) !== negated));
}

export function transactionPredicate(filter: GrpcTypes.TransactionFilter | undefined): Predicate<TransactionRecord> {
  return dnf<TransactionRecord, GrpcTypes.TransactionLiteral>(filter?.terms ?? [], (literal) => {
    const predicate = literal.predicate;
    switch (predicate.oneofKind) {
      case 'sender': {
        const address = normalizeSuiAddress(predicate.sender.address ?? '');
        return (tx) => tx.sender === address;
      }
      case 'affectedAddress': {
        const address = normalizeSuiAddress(predicate.affectedAddress.address ?? '');
        return (tx) => tx.affectedAddresses.includes(address);
      }
      case 'affectedObject': {
        const id = normalizeSuiAddress(predicate.affectedObject.objectId ?? '');
        return (tx) => tx.affectedObjects.includes(id);
      }
      case 'emitModule': {
        const matches = moduleMatcher(predicate.emitModule.module ?? '');
        return (tx) => tx.events.some((event) => matches(event.packageId, event.module));
      }
      case 'eventType': {
        const matches = typeFilterMatcher(predicate.eventType.eventType ?? '');
        return (tx) => tx.events.some((event) => matches(event.type));
      }
      case 'moveCall': {
        const target = predicate.moveCall.function ?? '';
        const [pkg, module, fn] = target.split('::');
        const packageId = normalizeSuiAddress(pkg ?? '');
        return (tx) => (tx.moveCalls ?? []).some((call) => call.package === packageId && (module === undefined || call.module === module) && (fn === undefined || call.function === fn));
      }
      default:
        throw invalidArgument('unsupported transaction filter predicate');
    }
  });
}

export function eventPredicate(filter: GrpcTypes.EventFilter | undefined): Predicate<EventRecord> {
  return dnf<EventRecord, GrpcTypes.EventLiteral>(filter?.terms ?? [], (literal) => {
    const predicate = literal.predicate;
    switch (predicate.oneofKind) {
      case 'sender': {
        const address = normalizeSuiAddress(predicate.sender.address ?? '');
        return (event) => event.sender === address;
      }
      case 'emitModule': {
        const matches = moduleMatcher(predicate.emitModule.module ?? '');
        return (event) => matches(event.packageId, event.module);
      }
      case 'eventType': {
        const matches = typeFilterMatcher(predicate.eventType.eventType ?? '');
        return (event) => matches(event.type);
      }
      default:
        throw invalidArgument('unsupported event filter predicate');
    }
  });
}

export const QueryEndReason = GrpcTypes.QueryEndReason;
