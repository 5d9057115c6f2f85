import { TypeTagSerializer } from '@mysten/sui/bcs';
import { EventBcs } from '../../ledger/effects-encoding.js';
import type { EventRecord } from '../../ledger/index.js';
import type { RequestContext } from '../context.js';
import { MoveModuleNode, MoveValueNode } from './move.js';
import { AddressNode } from './objects.js';
import { TransactionNode } from './transaction.js';

export class EventNode {
  readonly __typename = 'Event';
  readonly #ctx: RequestContext;
  readonly #event: EventRecord;

  constructor(ctx: RequestContext, event: EventRecord) {
    this.#ctx = ctx;
    this.#event = event;
  }

  eventBcs(): Uint8Array {
    const event = this.#event;
    const tag = TypeTagSerializer.parseFromStr(event.type, true);
    if (!('struct' in tag)) throw new Error(`event type is not a struct: ${event.type}`);
    return EventBcs.serialize({
      packageId: event.packageId,
      transactionModule: event.module,
      sender: event.sender,
      type: tag.struct,
      contents: event.contents,
    }).toBytes();
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
