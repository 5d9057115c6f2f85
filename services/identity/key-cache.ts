import { LRUCache } from 'lru-cache';
import type { Clock } from '../core/index.js';
import type { KeyResolution } from './principal-store.js';

/** Unknown-key answers get their own small cache: a flood of random values must not evict real keys. */
const UNKNOWN_ENTRIES = 10_000;

const UNKNOWN: KeyResolution = { kind: 'unknown' };

type KnownResolution = Exclude<KeyResolution, { kind: 'unknown' }>;

/**
 * Resolutions by key hash, each fresh for `ttlMs` by the injected clock. Existing keys live in an
 * LRU indexed by key id and organization id, so an invalidation touches only the entries it
 * names; unknown values live in a small LRU of their own, so a flood of random well-formed
 * values cannot evict real keys. A TTL of 0 keeps nothing.
 */
export class KeyCache {
  readonly #clock: Clock;
  readonly #ttlMs: number;
  readonly #known: LRUCache<string, { resolution: KnownResolution; cachedAt: number }> | undefined;
  readonly #unknown: LRUCache<string, number> | undefined;
  readonly #hashByKeyId = new Map<string, string>();
  readonly #hashesByOrganization = new Map<string, Set<string>>();

  constructor(clock: Clock, ttlMs: number, max: number) {
    this.#clock = clock;
    this.#ttlMs = ttlMs;
    // lru-cache reads `ttl: 0` as "never expires"; its own expiry only bounds memory, freshness
    // is checked here (an entry is stale from exactly `ttlMs` on).
    const options = { ttl: ttlMs, ttlResolution: 0, perf: { now: () => clock.now() } };
    this.#known =
      ttlMs > 0
        ? new LRUCache({ ...options, max, dispose: (entry, hash) => this.#unindex(hash, entry.resolution) })
        : undefined;
    this.#unknown = ttlMs > 0 ? new LRUCache({ ...options, max: UNKNOWN_ENTRIES }) : undefined;
  }

  get(hash: string): KeyResolution | undefined {
    const known = this.#known?.get(hash);
    if (known && this.#fresh(known.cachedAt)) return known.resolution;
    if (known) this.#known?.delete(hash);
    const unknownAt = this.#unknown?.get(hash);
    if (unknownAt !== undefined && this.#fresh(unknownAt)) return UNKNOWN;
    if (unknownAt !== undefined) this.#unknown?.delete(hash);
    return undefined;
  }

  set(hash: string, resolution: KeyResolution, cachedAt: number): void {
    if (resolution.kind === 'unknown') {
      this.#unknown?.set(hash, cachedAt);
      return;
    }
    if (!this.#known) return;
    this.#known.set(hash, { resolution, cachedAt });
    this.#hashByKeyId.set(keyIdOf(resolution), hash);
    const organizationId = organizationIdOf(resolution);
    if (organizationId) {
      let hashes = this.#hashesByOrganization.get(organizationId);
      if (!hashes) this.#hashesByOrganization.set(organizationId, (hashes = new Set()));
      hashes.add(hash);
    }
  }

  forgetKey(keyId: string): void {
    const hash = this.#hashByKeyId.get(keyId);
    if (hash !== undefined) this.#known?.delete(hash);
  }

  forgetOrganization(organizationId: string): void {
    for (const hash of [...(this.#hashesByOrganization.get(organizationId) ?? [])]) this.#known?.delete(hash);
  }

  forgetUnknown(): void {
    this.#unknown?.clear();
  }

  clear(): void {
    this.#known?.clear();
    this.#unknown?.clear();
  }

  #fresh(cachedAt: number): boolean {
    return this.#clock.now() - cachedAt < this.#ttlMs;
  }

  #unindex(hash: string, resolution: KnownResolution): void {
    const keyId = keyIdOf(resolution);
    if (this.#hashByKeyId.get(keyId) === hash) this.#hashByKeyId.delete(keyId);
    const organizationId = organizationIdOf(resolution);
    const hashes = organizationId ? this.#hashesByOrganization.get(organizationId) : undefined;
    if (organizationId && hashes) {
      hashes.delete(hash);
      if (hashes.size === 0) this.#hashesByOrganization.delete(organizationId);
    }
  }
}

function keyIdOf(resolution: KnownResolution): string {
  return resolution.kind === 'ok' ? resolution.principal.keyId : resolution.keyId;
}

function organizationIdOf(resolution: KnownResolution): string | null {
  switch (resolution.kind) {
    case 'ok':
      return resolution.principal.organization.id;
    case 'disabled':
    case 'organization-deleted':
      return resolution.organizationId;
    case 'no-organization':
      return null;
  }
}
