import { normalizeStructTag, parseStructTag } from '@mysten/sui/utils';
import type { StreamType } from '../definitions/filters.js';
import type { AppendedEvent } from '../log/stream-log.js';
import type { ChainTransaction } from './chain-activity.js';
import type { MatchTarget } from './match-consumer.js';

type StructTag = ReturnType<typeof parseStructTag>;

function baseOf(tag: StructTag): string {
  return `${tag.address}::${tag.module}::${tag.name}`;
}

/**
 * The keys an event type is looked up under: its full type, its type without instantiation
 * (a filter `pool::SwapEvent` matches every `pool::SwapEvent<A, B>`), and the same for every
 * type it wraps (a filter on `DepositEvent` matches `envelope::Wrapped<DepositEvent>`).
 */
export function eventTypeKeys(type: string): string[] {
  let tag: StructTag;
  try {
    tag = parseStructTag(type);
  } catch {
    return [type];
  }
  const keys = new Set<string>();
  const visit = (t: StructTag) => {
    keys.add(normalizeStructTag(t));
    keys.add(baseOf(t));
    for (const param of t.typeParams) if (typeof param === 'object') visit(param);
  };
  visit(tag);
  return [...keys];
}

function fieldsMatch(json: unknown, fields: Record<string, string | number | boolean> | undefined): boolean {
  if (!fields) return true;
  if (json === null || typeof json !== 'object') return false;
  for (const [path, expected] of Object.entries(fields)) {
    // Dotted paths reach into nested structs: `pool.id`.
    let value: unknown = json;
    for (const part of path.split('.')) value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined;
    // Move u64/u128 travel as strings in JSON: compare by string form so `5` matches `"5"`.
    if (value === undefined || String(value) !== String(expected)) return false;
  }
  return true;
}

export interface StreamMatch {
  streamId: string;
  event: AppendedEvent;
}

/**
 * Matches transactions against every stream of a network through four indexes (event type,
 * address, coin type, object id), so the cost of a transaction grows with what it touches,
 * not with the number of streams.
 */
export class StreamMatcher {
  readonly #byEventType = new Map<string, MatchTarget[]>();
  readonly #byAddress = new Map<string, MatchTarget[]>();
  readonly #byCoinType = new Map<string, MatchTarget[]>();
  readonly #byObjectId = new Map<string, MatchTarget[]>();
  readonly size: number;

  constructor(streams: readonly MatchTarget[]) {
    const add = (index: Map<string, MatchTarget[]>, key: string, stream: MatchTarget) => {
      const list = index.get(key) ?? [];
      if (!list.includes(stream)) list.push(stream);
      index.set(key, list);
    };
    for (const stream of streams) {
      switch (stream.type) {
        case 'event': for (const type of stream.filters.eventTypes) add(this.#byEventType, type, stream); break;
        case 'address': for (const address of stream.filters.addresses) add(this.#byAddress, address, stream); break;
        case 'coin': for (const coinType of stream.filters.coinTypes) add(this.#byCoinType, coinType, stream); break;
        case 'object': for (const objectId of stream.filters.objectIds) add(this.#byObjectId, objectId, stream); break;
      }
    }
    this.size = streams.length;
  }

  /** Every stream event a transaction produces, in the transaction's own order. */
  match(transaction: ChainTransaction): StreamMatch[] {
    const out: StreamMatch[] = [];
    const base = { checkpoint: transaction.checkpoint, digest: transaction.digest, timestampMs: transaction.timestampMs };
    const emit = (stream: MatchTarget, kind: StreamType, data: Record<string, unknown>) =>
      out.push({ streamId: stream.id, event: { kind, data: { ...base, ...data } } });

    for (const event of transaction.events) {
      const seen = new Set<string>();
      for (const key of eventTypeKeys(event.type)) {
        for (const stream of this.#byEventType.get(key) ?? []) {
          if (seen.has(stream.id) || stream.type !== 'event' || !fieldsMatch(event.json, stream.filters.fields)) continue;
          seen.add(stream.id);
          emit(stream, 'event', { eventIndex: event.index, type: event.type, sender: event.sender, packageId: event.packageId, module: event.module, json: event.json });
        }
      }
    }

    if (this.#byAddress.size > 0) {
      const received = new Set<string>();
      for (const change of transaction.balanceChanges) if (change.address !== transaction.sender) received.add(change.address);
      for (const object of transaction.changedObjects) if (object.outputOwner && object.outputOwner !== transaction.sender) received.add(object.outputOwner);
      const involved: [string, 'sender' | 'receiver'][] = [
        ...(transaction.sender ? [[transaction.sender, 'sender'] as [string, 'sender']] : []),
        ...[...received].map((address) => [address, 'receiver'] as [string, 'receiver']),
      ];
      for (const [address, role] of involved) {
        for (const stream of this.#byAddress.get(address) ?? []) {
          emit(stream, 'address', { address, role, balanceChanges: transaction.balanceChanges.filter((change) => change.address === address) });
        }
      }
    }

    for (const change of transaction.balanceChanges) {
      for (const stream of this.#byCoinType.get(change.coinType) ?? []) emit(stream, 'coin', { ...change });
    }

    for (const object of transaction.changedObjects) {
      for (const stream of this.#byObjectId.get(object.objectId) ?? []) {
        const change = object.idOperation === 'created' ? 'created' : object.idOperation === 'deleted' ? 'deleted'
          : object.inputOwner !== object.outputOwner ? 'ownerChanged' : 'mutated';
        emit(stream, 'object', { objectId: object.objectId, objectType: object.objectType, change, previousOwner: object.inputOwner, owner: object.outputOwner, version: object.outputVersion });
      }
    }
    return out;
  }
}
