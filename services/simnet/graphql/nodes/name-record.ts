import { CATALOG } from '../../ledger/catalog.js';
import type { NameRecord } from '../../ledger/index.js';
import type { RequestContext } from '../context.js';
import { MoveValueNode } from './move.js';
import { AddressNode } from './objects.js';

const str = (n: bigint) => n.toString();

export class NameRecordNode {
  readonly __typename = 'NameRecord';
  readonly #ctx: RequestContext;
  readonly #record: NameRecord;

  constructor(ctx: RequestContext, record: NameRecord) {
    this.#ctx = ctx;
    this.#record = record;
  }

  /** The record if it has not expired by the chain's clock, as Sui's resolution rules say. */
  static live(ctx: RequestContext, record: NameRecord): NameRecordNode | null {
    return record.expirationTimestampMs > ctx.ledger.nowMs() ? new NameRecordNode(ctx, record) : null;
  }

  get domain(): string {
    return this.#record.name;
  }

  target(): AddressNode | null {
    return this.#record.targetAddress ? new AddressNode(this.#ctx, this.#record.targetAddress) : null;
  }

  parent(): NameRecordNode | null {
    const labels = this.#record.name.split('.');
    if (labels.length <= 2) return null;
    const parent = this.#ctx.ledger.lookupName(labels.slice(1).join('.'));
    return parent ? NameRecordNode.live(this.#ctx, parent) : null;
  }

  contents(): MoveValueNode {
    const data: { key: string; value: string }[] = [];
    if (this.#record.avatar) data.push({ key: 'avatar', value: this.#record.avatar });
    if (this.#record.contentHash) data.push({ key: 'content_hash', value: this.#record.contentHash });
    return new MoveValueNode(`${CATALOG.suinsPackage}::name_record::NameRecord`, null, {
      nft_id: this.#record.nftId,
      expiration_timestamp_ms: str(this.#record.expirationTimestampMs),
      target_address: this.#record.targetAddress ?? null,
      data: { contents: data },
    });
  }
}
