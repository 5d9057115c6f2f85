import { bcs } from '@mysten/sui/bcs';
import { fromBase58, normalizeSuiAddress } from '@mysten/sui/utils';
import type { JsonValue, LedgerReader, ObjectOwner, ObjectRecord } from '../ledger/index.js';
import { coinObjectType } from '../ledger/constants.js';
import { blake2b256 } from '../ledger/hashing.js';
import { MoveStructs } from '../ledger/move-values.js';

/** An object as the transaction sees it while executing. */
export interface WorkingObject {
  readonly id: string;
  readonly original?: ObjectRecord;
  readonly type: string;
  /** Undefined while a newly created object has not been transferred anywhere. */
  owner?: ObjectOwner;
  coin?: { readonly coinType: string; balance: bigint };
  contents?: Uint8Array;
  json?: JsonValue;
  display?: Readonly<Record<string, string>>;
  deleted: boolean;
  /** Immutable or read-only shared inputs: never written. */
  readonly readOnly: boolean;
  readonly hasPublicTransfer: boolean;
}

/** Object ids Sui derives for objects created by a transaction: blake2b(0xf1 ‖ digest ‖ n). */
export function deriveObjectId(transactionDigest: string, creationIndex: number): string {
  const digest = fromBase58(transactionDigest);
  const input = new Uint8Array(1 + digest.length + 8);
  input[0] = 0xf1;
  input.set(digest, 1);
  new DataView(input.buffer).setBigUint64(1 + digest.length, BigInt(creationIndex), true);
  return normalizeSuiAddress(Buffer.from(blake2b256(input)).toString('hex'));
}

export class WorkingSet {
  readonly objects = new Map<string, WorkingObject>();
  #created = 0;

  constructor(
    readonly ledger: LedgerReader,
    readonly transactionDigest: string,
  ) {}

  load(record: ObjectRecord, readOnly: boolean): WorkingObject {
    const existing = this.objects.get(record.objectId);
    if (existing) return existing;
    const object: WorkingObject = {
      id: record.objectId,
      original: record,
      type: record.type,
      owner: record.owner,
      coin: record.coin ? { coinType: record.coin.coinType, balance: record.coin.balance } : undefined,
      json: record.json,
      display: record.display,
      deleted: false,
      readOnly,
      hasPublicTransfer: record.hasPublicTransfer,
    };
    this.objects.set(object.id, object);
    return object;
  }

  get(id: string): WorkingObject {
    const object = this.objects.get(id);
    if (!object || object.deleted) throw new Error(`object ${id} is not available`);
    return object;
  }

  createCoin(coinType: string, balance: bigint): WorkingObject {
    const id = deriveObjectId(this.transactionDigest, this.#created++);
    const object: WorkingObject = { id, type: coinObjectType(coinType), coin: { coinType, balance }, deleted: false, readOnly: false, hasPublicTransfer: true };
    this.objects.set(id, object);
    return object;
  }

  /** A new Move object (not a coin); it must be transferred, shared or deleted before the end. */
  createObject(type: string, build: (id: string) => { contents: Uint8Array; json: JsonValue }, hasPublicTransfer = false): WorkingObject {
    const id = deriveObjectId(this.transactionDigest, this.#created++);
    const object: WorkingObject = { id, type, ...build(id), deleted: false, readOnly: false, hasPublicTransfer };
    this.objects.set(id, object);
    return object;
  }

  delete(id: string): void {
    this.get(id).deleted = true;
  }
}

/** Contents and JSON of a coin at its current balance. */
export function coinState(id: string, balance: bigint): { contents: Uint8Array; json: JsonValue } {
  return { contents: MoveStructs.Coin.serialize({ id, balance }).toBytes(), json: { id, balance: balance.toString() } };
}

export { bcs };
