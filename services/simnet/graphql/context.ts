import type { LedgerReader, ObjectRecord, Page as LedgerPage, PageRequest } from '../ledger/index.js';

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
 * query does not recompute the same scan per node.
 */
export class RequestContext {
  readonly ledger: LedgerReader;
  #liveObjects: ObjectRecord[] | undefined;

  constructor(ledger: LedgerReader) {
    this.ledger = ledger;
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
}
