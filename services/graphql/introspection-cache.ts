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
 * Only a 200 is kept; the key is the network and the exact request (query, variables, operation).
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

  static key(network: string, forwardedBody: string): string {
    return `${network}:${sha256(forwardedBody)}`;
  }

  get(key: string): GraphQLPassThroughResponse | undefined {
    const cached = this.#entries.get(key);
    if (cached === undefined) return undefined;
    if (cached.expiresAt <= this.#clock.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return cached.answer;
  }

  set(key: string, answer: GraphQLPassThroughResponse): void {
    if (answer.status !== 200) return;
    this.#entries.delete(key);
    this.#entries.set(key, { answer, expiresAt: this.#clock.now() + this.#bounds.ttlMs });
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= this.#bounds.maxEntries) break;
      this.#entries.delete(oldest);
    }
  }
}
