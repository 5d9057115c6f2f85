import { print, type DocumentNode } from 'graphql';
import type { Clock } from '../core/index.js';
import type { GraphQLPassThroughResponse } from '../upstream/index.js';
import { sha256 } from './persisted-queries.js';

export interface IntrospectionCacheBounds {
  /** How long an answer is served before the upstream is asked again (a schema changes with a node upgrade). */
  ttlMs: number;
  /** Distinct introspection requests kept over all networks (clients send a handful of variants). */
  maxEntries: number;
}

interface Cached {
  answer: GraphQLPassThroughResponse;
  expiresAt: number;
  /** The organization whose request brought the answer in: the room is counted against it. */
  holder: string;
}

/**
 * Answers to introspection-only queries (`__schema`, `__type`, `__typename` at the top), per
 * network: the schema is the same for every caller and its answer is hundreds of KB, so asking
 * the upstream each time would let one tenant spend the node's time for a credit per request.
 * Only a 200 is kept; the key is the network and the request (query, variables, operation), the
 * query in graphql-js's printed form: whitespace, commas and comments change no answer, so the
 * variants tools and clients send are one entry, not one each.
 *
 * A kept answer serves every caller, but the room is shared out: at the bound, the organization
 * holding the most entries gives up its least recently used one. Evicting the oldest overall let
 * one tenant sending new variants (`__type(name: ...)` for each type) flush every other's entries.
 */
export class IntrospectionCache {
  /** Insertion order is recency: the first key is the least recently used. */
  readonly #entries = new Map<string, Cached>();
  /** How many entries each organization holds. */
  readonly #held = new Map<string, number>();
  readonly #bounds: IntrospectionCacheBounds;
  readonly #clock: Clock;

  constructor(bounds: IntrospectionCacheBounds, clock: Clock) {
    this.#bounds = bounds;
    this.#clock = clock;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** `document` is the query as the guard rails parsed it (checkQuery): it is not parsed again. */
  static key(network: string, request: { document: DocumentNode; variables?: unknown; operationName?: string | undefined }): string {
    const query = print(request.document);
    return `${network}:${sha256(JSON.stringify({ query, variables: request.variables, operationName: request.operationName }))}`;
  }

  get(key: string): GraphQLPassThroughResponse | undefined {
    const cached = this.#entries.get(key);
    if (cached === undefined) return undefined;
    if (cached.expiresAt <= this.#clock.now()) {
      this.#evict(key, cached);
      return undefined;
    }
    this.#entries.delete(key);
    this.#entries.set(key, cached);
    return cached.answer;
  }

  /** Keeps `answer` for `key`, counted against `holder` (the organization that asked). */
  set(key: string, answer: GraphQLPassThroughResponse, holder: string): void {
    // An answer with errors carries their `locations` in the text that was sent, which another
    // variant of the same query would not match: it is not kept.
    if (answer.status !== 200 || !withoutErrors(answer.body)) return;
    const existing = this.#entries.get(key);
    if (existing !== undefined) this.#evict(key, existing);
    this.#entries.set(key, { answer, expiresAt: this.#clock.now() + this.#bounds.ttlMs, holder });
    this.#held.set(holder, (this.#held.get(holder) ?? 0) + 1);
    while (this.#entries.size > this.#bounds.maxEntries) this.#evictOldestOfLargestHolder();
  }

  #evictOldestOfLargestHolder(): void {
    const most = Math.max(...this.#held.values());
    for (const [key, cached] of this.#entries) {
      if (this.#held.get(cached.holder) === most) return this.#evict(key, cached);
    }
  }

  #evict(key: string, cached: Cached): void {
    this.#entries.delete(key);
    const held = (this.#held.get(cached.holder) ?? 1) - 1;
    if (held === 0) this.#held.delete(cached.holder);
    else this.#held.set(cached.holder, held);
  }
}

/** True for a JSON object answer with no `errors` member (read once per kept answer, per TTL). */
function withoutErrors(body: Buffer): boolean {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    return value !== null && typeof value === 'object' && !Object.hasOwn(value, 'errors');
  } catch {
    return false;
  }
}
