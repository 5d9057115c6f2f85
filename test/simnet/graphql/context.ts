import type {
  CheckpointRecord,
  EventRecord,
  LedgerReader,
  ObjectRecord,
  Page as LedgerPage,
  PageRequest,
  TransactionRecord,
} from '../ledger/index.js';

/** Most items a ledger listing returns per call. */
const LEDGER_PAGE = 1000;

/** Reads every page of a ledger listing. simnet's chain is small enough to page in memory. */
export function readAll<T>(list: (page: PageRequest) => LedgerPage<T>): T[] {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const page = list({ cursor, limit: LEDGER_PAGE });
    items.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return items;
}

/**
 * Per-request state: the ledger and what the resolvers of one request share, so that one
 * query sees one consistent chain and does not recompute positions per node.
 */
export class RequestContext {
  readonly ledger: LedgerReader;
  readonly #positions = new Map<bigint, Map<string, number>>();
  #liveObjects: ObjectRecord[] | undefined;

  constructor(ledger: LedgerReader) {
    this.ledger = ledger;
  }

  /**
   * The global sequence number of a sealed transaction (Sui's `tx_sequence_number`): its
   * position among all transactions since genesis. Undefined until the transaction is sealed.
   */
  transactionSequence(tx: TransactionRecord): number | undefined {
    if (tx.checkpoint === undefined) return undefined;
    const checkpoint = this.ledger.getCheckpoint(tx.checkpoint);
    if (!checkpoint) return undefined;
    const position = this.#positionsIn(checkpoint).get(tx.digest);
    if (position === undefined) return undefined;
    return Number(checkpoint.networkTotalTransactions) - checkpoint.transactionDigests.length + position;
  }

  #positionsIn(checkpoint: CheckpointRecord): Map<string, number> {
    let positions = this.#positions.get(checkpoint.sequenceNumber);
    if (!positions) {
      positions = new Map(checkpoint.transactionDigests.map((digest, index) => [digest, index]));
      this.#positions.set(checkpoint.sequenceNumber, positions);
    }
    return positions;
  }

  /** Every live object, ordered by id: the outputs of all transactions, at their latest version. */
  liveObjects(): readonly ObjectRecord[] {
    if (!this.#liveObjects) {
      const ids = new Set<string>();
      for (const { transaction } of this.ledger.iterateTransactions()) {
        for (const change of transaction.effects.changedObjects) if (change.output) ids.add(change.objectId);
      }
      this.#liveObjects = [...ids]
        .sort()
        .map((id) => this.ledger.getObject(id))
        .filter((o): o is ObjectRecord => o !== undefined);
    }
    return this.#liveObjects;
  }

  eventKey(event: EventRecord): [number, number] | undefined {
    const tx = this.ledger.getTransaction(event.transactionDigest);
    const sequence = tx && this.transactionSequence(tx);
    return sequence === undefined ? undefined : [sequence, event.eventIndex];
  }
}
