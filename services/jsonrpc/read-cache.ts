import { LRUCache } from 'lru-cache';
import type { Gauge } from 'prom-client';
import type { CounterSeries, Metrics } from '../core/index.js';

/**
 * Upstream answers the JSON-RPC methods keep, per network, so a repeated read of something that
 * cannot change costs no upstream call. Only what the table below names is kept, each kind with
 * its freshness and the reason it holds (docs/jsonrpc.md, "Caches"):
 * - `immutable`: kept until the LRU evicts it;
 * - `mutable`: kept for `mutableTtlMs` by the one clock (served while its age is at most the
 *   TTL, fetched again one millisecond later).
 * Values are the rendered legacy JSON a method answers with, shared by every caller: never
 * mutated after `set`. Failures are never kept. The cache sits behind the request pipeline:
 * a call answered from it is admitted, limited and charged exactly as one that went upstream.
 */
export type Freshness = 'immutable' | 'mutable';

export const CACHED_READS = {
  'chain-identifier': { freshness: 'immutable', why: 'the digest of the genesis checkpoint' },
  checkpoint: { freshness: 'immutable', why: 'a certified checkpoint (by sequence number or digest) never changes' },
  'move-package': {
    freshness: 'immutable',
    why: 'a package id names one published version (an upgrade publishes a new id); system packages (0x1, 0x2, 0x3, 0xb, 0xdee9) are upgraded in place at epoch changes, so they are kept as mutable',
  },
  'move-function': { freshness: 'immutable', why: 'as move-package' },
  'move-struct': { freshness: 'immutable', why: 'as move-package' },
  transaction: { freshness: 'immutable', why: 'once in a checkpoint, a transaction, its effects, events and timestamp are final (one not yet in a checkpoint is not kept)' },
  'transaction-events': { freshness: 'immutable', why: 'as transaction' },
  'coin-metadata': { freshness: 'mutable', why: 'the holder of the TreasuryCap (or MetadataCap) may update a coin\'s name, symbol, description and icon' },
} as const satisfies Record<string, { freshness: Freshness; why: string }>;

export type CachedReadKind = keyof typeof CACHED_READS;

export const CACHED_READ_KINDS = Object.keys(CACHED_READS) as CachedReadKind[];

export interface ReadCacheLimits {
  /** Entries kept per network. */
  maxEntries: number;
  /** Bytes kept per network: the UTF-8 JSON size of the values (the heap holds somewhat more: docs/jsonrpc.md). */
  maxBytes: number;
  /** How long a mutable read is served before it is fetched again; 0 keeps none. */
  mutableTtlMs: number;
}

/** The instruments a network's cache records on (services/core/metrics.ts). */
export type ReadCacheInstruments = Pick<Metrics, 'jsonRpcCacheLookups' | 'jsonRpcCacheBytes' | 'jsonRpcCacheEntries'>;

export interface ReadCacheOptions {
  network: string;
  limits: ReadCacheLimits;
  /** The one clock (ms since the epoch): the TTL of mutable reads. */
  now: () => number;
  instruments?: ReadCacheInstruments;
}

/** One network's kept reads: an LRU bounded by entries and by bytes. */
export class ReadCache {
  readonly #entries: LRUCache<string, { value: unknown }>;
  readonly #mutableTtlMs: number;
  readonly #lookups: Record<CachedReadKind, { hit: CounterSeries; miss: CounterSeries }> | undefined;
  readonly #bytes: Gauge | undefined;
  readonly #count: Gauge | undefined;
  readonly #network: string;

  constructor(options: ReadCacheOptions) {
    const { limits, instruments, network } = options;
    this.#network = network;
    this.#mutableTtlMs = limits.mutableTtlMs;
    this.#entries = new LRUCache({
      max: limits.maxEntries,
      maxSize: limits.maxBytes,
      // Freshness is by the one clock, to the millisecond (lru-cache otherwise rounds to its own timer).
      ttlResolution: 0,
      perf: { now: options.now },
    });
    this.#lookups = instruments && Object.fromEntries(CACHED_READ_KINDS.map((kind) => [kind, {
      hit: instruments.jsonRpcCacheLookups.series({ network, kind, result: 'hit' }),
      miss: instruments.jsonRpcCacheLookups.series({ network, kind, result: 'miss' }),
    }])) as Record<CachedReadKind, { hit: CounterSeries; miss: CounterSeries }>;
    this.#bytes = instruments?.jsonRpcCacheBytes;
    this.#count = instruments?.jsonRpcCacheEntries;
  }

  /** The kept value of `kind`/`key`, or undefined (counted as a hit or a miss). */
  get<T>(kind: CachedReadKind, key: string): T | undefined {
    const entry = this.#entries.get(`${kind}\u0000${key}`);
    if (this.#lookups) this.#lookups[kind][entry ? 'hit' : 'miss'].inc();
    return entry?.value as T | undefined;
  }

  /** Keeps `value` (JSON-serializable) with its kind's freshness, or `freshness` when a key of the kind is an exception. */
  set(kind: CachedReadKind, key: string, value: unknown, freshness: Freshness = CACHED_READS[kind].freshness): void {
    if (freshness === 'mutable' && this.#mutableTtlMs === 0) return;
    const size = Buffer.byteLength(JSON.stringify(value));
    // lru-cache reads `ttl: 0` as "never expires": that is the immutable kinds.
    this.#entries.set(`${kind}\u0000${key}`, { value }, { size, ttl: freshness === 'mutable' ? this.#mutableTtlMs : 0 });
    this.#bytes?.set({ network: this.#network }, this.#entries.calculatedSize);
    this.#count?.set({ network: this.#network }, this.#entries.size);
  }

  /**
   * The kept value, or `load()`'s, kept when `keep` allows it (default: always). Concurrent misses
   * of one key each load: a load runs on its own request's budget and cancel signal, which another
   * request must not inherit.
   */
  async read<T>(kind: CachedReadKind, key: string, load: () => Promise<T>, options: { keep?: (value: T) => boolean; freshness?: Freshness } = {}): Promise<T> {
    const kept = this.get<T>(kind, key);
    if (kept !== undefined) return kept;
    const value = await load();
    if (options.keep?.(value) ?? true) this.set(kind, key, value, options.freshness);
    return value;
  }

  /** Entries and bytes kept now. */
  get usage(): { entries: number; bytes: number } {
    return { entries: this.#entries.size, bytes: this.#entries.calculatedSize };
  }
}

/** One cache per network, created on first use, all with the same limits and instruments. */
export class ReadCaches {
  readonly #caches = new Map<string, ReadCache>();
  readonly #options: Omit<ReadCacheOptions, 'network'>;

  constructor(options: Omit<ReadCacheOptions, 'network'>) {
    this.#options = options;
  }

  of(network: string): ReadCache {
    let cache = this.#caches.get(network);
    if (!cache) {
      cache = new ReadCache({ ...this.#options, network });
      this.#caches.set(network, cache);
    }
    return cache;
  }
}
