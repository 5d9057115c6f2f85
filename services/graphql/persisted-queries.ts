import { createHash } from 'node:crypto';
import { ApiError } from '../core/index.js';

/** How much the store keeps, per process and per organization. */
export interface PersistedQueryBounds {
  maxEntries: number;
  /** Bytes of query text (UTF-8) plus the key, over all organizations. */
  maxBytes: number;
  /** Bytes one organization may hold: its new queries evict its own oldest. */
  maxBytesPerOrganization: number;
}

interface Entry {
  query: string;
  organization: string;
  bytes: number;
}

/**
 * Automatic persisted queries (Apollo's APQ convention, `extensions.persistedQuery.sha256Hash`):
 * a client sends the hash alone; when the gateway does not know it, the client resends hash and
 * query once, and the gateway keeps the pair. The upstream never sees a hash: Sui's GraphQL
 * service does not speak APQ, so the full query is forwarded.
 *
 * Kept per organization: one tenant can neither flush another's queries nor learn, by sending a
 * hash alone, which queries another ran. Bounded LRU by entries and bytes, per process. Only a
 * query that passed every guard rail is stored (the route calls `remember` after the checks).
 */
export class PersistedQueries {
  /** Insertion order is recency: the first key is the least recently used. */
  readonly #entries = new Map<string, Entry>();
  /** Each organization's keys, in the same order, so its own oldest is found without a scan. */
  readonly #byOrganization = new Map<string, Map<string, number>>();
  readonly #bounds: PersistedQueryBounds;
  #bytes = 0;

  constructor(bounds: PersistedQueryBounds) {
    this.#bounds = bounds;
  }

  /** Bytes held now (query text and keys). */
  get bytes(): number {
    return this.#bytes;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The stored query of `hash` for this organization, or undefined (PersistedQueryNotFound). */
  lookup(organization: string, hash: string): string | undefined {
    const key = keyOf(organization, hash);
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#touch(key, entry);
    return entry.query;
  }

  /** Refuses a query that is not what its hash says (before any guard rail: the client is wrong). */
  static verify(query: string, hash: string): void {
    if (sha256(query) !== hash.toLowerCase()) {
      throw new ApiError('GRAPHQL_PERSISTED_QUERY_MISMATCH', { message: 'extensions.persistedQuery.sha256Hash is not the SHA-256 of the query.' });
    }
  }

  /** Keeps a verified query that passed the guard rails. */
  remember(organization: string, hash: string, query: string): void {
    const key = keyOf(organization, hash);
    const existing = this.#entries.get(key);
    if (existing !== undefined) return this.#touch(key, existing);
    const bytes = Buffer.byteLength(query, 'utf8') + key.length;
    if (bytes > this.#bounds.maxBytesPerOrganization || bytes > this.#bounds.maxBytes) return;
    let ownBytes = bytes;
    for (const size of this.#byOrganization.get(organization)?.values() ?? []) ownBytes += size;
    for (const [oldest, size] of this.#byOrganization.get(organization) ?? []) {
      if (ownBytes <= this.#bounds.maxBytesPerOrganization) break;
      this.#evict(oldest);
      ownBytes -= size;
    }
    const own = this.#byOrganization.get(organization) ?? new Map<string, number>();
    this.#byOrganization.set(organization, own);
    this.#entries.set(key, { query, organization, bytes });
    own.set(key, bytes);
    this.#bytes += bytes;
    while (this.#entries.size > this.#bounds.maxEntries || this.#bytes > this.#bounds.maxBytes) {
      const oldest = this.#oldestOfLargestHolder(this.#entries.size > this.#bounds.maxEntries ? 'entries' : 'bytes');
      if (oldest === undefined) break;
      this.#evict(oldest);
    }
  }

  /**
   * At the process's bounds the organizations holding the most give up their least recently used
   * query: evicting the oldest overall let one tenant flush every other's by storing 1,000 of its own.
   */
  #oldestOfLargestHolder(by: 'entries' | 'bytes'): string | undefined {
    const held = new Map<string, number>();
    let most = 0;
    for (const [organization, own] of this.#byOrganization) {
      let amount = own.size;
      if (by === 'bytes') {
        amount = 0;
        for (const size of own.values()) amount += size;
      }
      held.set(organization, amount);
      most = Math.max(most, amount);
    }
    for (const [key, entry] of this.#entries) if (held.get(entry.organization) === most) return key;
    return undefined;
  }

  #touch(key: string, entry: Entry): void {
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    const own = this.#byOrganization.get(entry.organization);
    own?.delete(key);
    own?.set(key, entry.bytes);
  }

  #evict(key: string): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
    const own = this.#byOrganization.get(entry.organization);
    own?.delete(key);
    if (own?.size === 0) this.#byOrganization.delete(entry.organization);
  }
}

function keyOf(organization: string, hash: string): string {
  return `${organization}:${hash.toLowerCase()}`;
}

export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
