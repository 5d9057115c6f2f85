import { createHash } from 'node:crypto';
import { ApiError } from '../core/index.js';

/**
 * Automatic persisted queries (Apollo's APQ convention, `extensions.persistedQuery.sha256Hash`):
 * a client sends the hash alone; when the gateway does not know it, the client resends hash and
 * query once, and the gateway keeps the pair. The upstream never sees a hash: Sui's GraphQL
 * service does not speak APQ, so the full query is forwarded. Bounded LRU, per process.
 */
export class PersistedQueries {
  readonly #queries = new Map<string, string>();
  readonly #capacity: number;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  /**
   * The query to run: `query` itself (stored under `hash` when given), or the stored query of
   * `hash`. Undefined when only an unknown hash was sent (the caller answers PersistedQueryNotFound).
   */
  resolve(query: string | undefined, hash: string | undefined): string | undefined {
    if (hash === undefined) return query;
    if (query !== undefined) {
      if (sha256(query) !== hash.toLowerCase()) {
        throw new ApiError('GRAPHQL_PERSISTED_QUERY_MISMATCH', { message: 'extensions.persistedQuery.sha256Hash is not the SHA-256 of the query.' });
      }
      this.#remember(hash.toLowerCase(), query);
      return query;
    }
    const stored = this.#queries.get(hash.toLowerCase());
    if (stored !== undefined) this.#remember(hash.toLowerCase(), stored);
    return stored;
  }

  #remember(hash: string, query: string): void {
    this.#queries.delete(hash);
    this.#queries.set(hash, query);
    if (this.#queries.size > this.#capacity) this.#queries.delete(this.#queries.keys().next().value!);
  }
}

export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
