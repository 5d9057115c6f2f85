import ipaddr from 'ipaddr.js';
import { LRUCache } from 'lru-cache';
import type { Clock } from '../core/index.js';

/** Clients whose budget is remembered; past it the least recent one starts afresh. */
const CLIENTS_REMEMBERED = 50_000;
const MINUTE_MS = 60_000;

/**
 * Per client address, how many key lookups may find no key. Every well-formed value that is not
 * cached costs a PostgreSQL query, so a flood of random values from one client would otherwise
 * become database load that slows every tenant. A lookup takes one lookup from the client's
 * bucket before it starts (so concurrent ones are counted too) and gives it back when it found a
 * key: only misses spend. An empty bucket refuses the lookup with the spec's per-IP cap, 429
 * `RATE_LIMIT_EXCEEDED` with Retry-After (docs/operations.md, "Unknown keys"). The bucket holds
 * `perMinute` and refills at `perMinute` a minute by the injected clock. IPv6 clients are
 * counted per /64, the block one host is usually given.
 */
export class UnknownKeyBudget {
  readonly #clock: Clock;
  readonly #perMinute: number;
  readonly #buckets = new LRUCache<string, { left: number; at: number }>({ max: CLIENTS_REMEMBERED });

  constructor(clock: Clock, perMinute: number) {
    this.#clock = clock;
    this.#perMinute = perMinute;
  }

  /** Takes one lookup from the client's bucket: 0 when taken, else the milliseconds until one is back. */
  take(clientIp: string): number {
    const client = clientOf(clientIp);
    const now = this.#clock.now();
    const bucket = this.#buckets.get(client);
    // A clock set back (NTP, a test) refills nothing; it must not drain the bucket either.
    const elapsedMs = bucket ? Math.max(0, now - bucket.at) : 0;
    const left = bucket ? Math.min(this.#perMinute, bucket.left + (elapsedMs * this.#perMinute) / MINUTE_MS) : this.#perMinute;
    if (left < 1) {
      this.#buckets.set(client, { left, at: now });
      return Math.ceil(((1 - left) * MINUTE_MS) / this.#perMinute);
    }
    this.#buckets.set(client, { left: left - 1, at: now });
    return 0;
  }

  /** Gives back the lookup of a value that named a key. */
  giveBack(clientIp: string): void {
    const bucket = this.#buckets.get(clientOf(clientIp));
    if (bucket) bucket.left = Math.min(this.#perMinute, bucket.left + 1);
  }
}

/**
 * The address a budget is kept for: IPv4 as is, IPv6 by its /64 prefix (an IPv4-mapped one as its
 * IPv4), one spelling per block (ipaddr.js parses every form). Anything unparsable is its own key.
 */
export function clientOf(ip: string): string {
  // Node leaves a socket's remoteAddress undefined once the client is gone; such requests share one budget.
  if (typeof ip !== 'string') return '';
  if (!ipaddr.isValid(ip)) return ip;
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  return `${(address as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16)).join(':')}::/64`;
}
