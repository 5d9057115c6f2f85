import { parse, print } from 'graphql';
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
}

/**
 * Answers to introspection-only queries (`__schema`, `__type`, `__typename` at the top), per
 * network: the schema is the same for every caller and its answer is hundreds of KB, so asking
 * the upstream each time would let one tenant spend the node's time for a credit per request.
 * Only a 200 is kept; the key is the network and the request (query, variables, operation), the
 * query in graphql-js's printed form: whitespace, commas and comments change no answer, so the
 * variants tools and clients send are one entry, not one each. The least recently used entry
 * goes first, so the variants in use stay while a caller sending new ones only evicts its own.
 */
export class IntrospectionCache {
  readonly #entries = new Map<string, Cached>();
  readonly #bounds: IntrospectionCacheBounds;
  readonly #clock: Clock;

  constructor(bounds: IntrospectionCacheBounds, clock: Clock) {
    this.#bounds = bounds;
    this.#clock = clock;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** `query` has passed the guard rails (checkQuery), so it parses, within the token limit. */
  static key(network: string, request: { query: string; variables?: unknown; operationName?: string | undefined }): string {
    const query = print(parse(request.query, { noLocation: true }));
    return `${network}:${sha256(JSON.stringify({ query, variables: request.variables, operationName: request.operationName }))}`;
  }

  get(key: string): GraphQLPassThroughResponse | undefined {
    const cached = this.#entries.get(key);
    if (cached === undefined) return undefined;
    if (cached.expiresAt <= this.#clock.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    // Most recently used last: eviction takes the first.
    this.#entries.delete(key);
    this.#entries.set(key, cached);
    return cached.answer;
  }

  set(key: string, answer: GraphQLPassThroughResponse): void {
    // An answer with errors carries their `locations` in the text that was sent, which another
    // variant of the same query would not match: it is not kept.
    if (answer.status !== 200 || !withoutErrors(answer.body)) return;
    this.#entries.delete(key);
    this.#entries.set(key, { answer, expiresAt: this.#clock.now() + this.#bounds.ttlMs });
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= this.#bounds.maxEntries) break;
      this.#entries.delete(oldest);
    }
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
