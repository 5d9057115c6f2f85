import { LRUCache } from 'lru-cache';
import { ApiError, type Clock, type CounterSeries, type Logger, type Metrics, type Network } from '../core/index.js';
import type { Database } from '../db/index.js';
import { AccessRefusal } from './access-refusal.js';
import { hashKeyValue, isWellFormedKeyValue } from './key-value.js';
import { isOriginAllowed } from './origins.js';
import { KeyCache } from './key-cache.js';
import { resolveKeyHash, type KeyResolution } from './principal-store.js';
import { UnknownKeyBudget } from './unknown-key-budget.js';
import type { Principal } from './principal.js';
import type { Scope } from './scopes.js';
import { IDENTITY_CHANNEL, parseIdentityChange, type IdentityChange } from './invalidation.js';

export interface AccessRequest {
  /** The network of the address the request was sent to. */
  network: Network;
  /** The scope the operation needs; `null` when any valid key of the network may call it. */
  scope: Scope | null;
  /** The request's `Origin` header, if any. */
  origin: string | undefined;
  /** The client's address as the transport trusts it: the budget of lookups that find no key is kept per client. */
  clientIp: string;
}

/** Default of SUIGW_UNKNOWN_KEY_LOOKUPS_PER_MINUTE. */
export const UNKNOWN_KEY_LOOKUPS_PER_MINUTE = 60;

/** How many raw values' hashes are remembered (a flood of random values only costs re-hashing). */
const HASHES_REMEMBERED = 10_000;

export interface AuthenticatorOptions {
  database: Database;
  clock: Clock;
  /** How long a resolution stays cached; NOTIFY invalidation usually ends it sooner. */
  ttlMs: number;
  logger?: Logger;
  maxEntries?: number;
  /** Counts each verification's cache result, hit or miss (services/core/metrics.ts). */
  cacheLookups?: Metrics['keyCacheLookups'];
  /** Key lookups per minute and client that may find no key (UnknownKeyBudget); default UNKNOWN_KEY_LOOKUPS_PER_MINUTE. */
  unknownKeyLookupsPerMinute?: number;
}

/**
 * Verifies keys and checks access. The one implementation behind every adapter: the fastify
 * hook, the gRPC interceptor and Envoy's ext_authz service all call `authenticate`.
 */
export class Authenticator {
  readonly #database: Database;
  readonly #logger: Logger | undefined;
  readonly #clock: Clock;
  readonly #cache: KeyCache;
  readonly #unknownKeyBudget: UnknownKeyBudget;
  /** The hit and miss series of the cache-lookup counter, resolved once. */
  readonly #cacheHits: CounterSeries | undefined;
  readonly #cacheMisses: CounterSeries | undefined;
  /**
   * The hash of each recently seen well-formed value, so a cached key is not re-hashed on every
   * request. The raw value is a key of this in-process map only: never logged nor stored.
   */
  readonly #hashes: LRUCache<string, string>;
  readonly #inflight = new Map<string, { lookup: Promise<KeyResolution>; generation: string }>();
  /**
   * Count invalidations: changes to existing keys and organizations, and key creations (which
   * only matter to `unknown` answers). A lookup that started before one may have read the old
   * row: its answer goes to its own callers but is neither cached nor shared with later ones.
   */
  #changes = 0;
  #creations = 0;
  #unlisten: (() => Promise<void>) | undefined;

  constructor(options: AuthenticatorOptions) {
    this.#database = options.database;
    this.#clock = options.clock;
    this.#logger = options.logger;
    this.#cache = new KeyCache(options.clock, options.ttlMs, options.maxEntries ?? 100_000);
    this.#unknownKeyBudget = new UnknownKeyBudget(options.clock, options.unknownKeyLookupsPerMinute ?? UNKNOWN_KEY_LOOKUPS_PER_MINUTE);
    this.#cacheHits = options.cacheLookups?.series({ result: 'hit' });
    this.#cacheMisses = options.cacheLookups?.series({ result: 'miss' });
    this.#hashes = new LRUCache({ max: Math.min(options.maxEntries ?? 100_000, HASHES_REMEMBERED) });
  }

  /** Starts following identity changes from every process. */
  async start(): Promise<void> {
    this.#unlisten ??= await this.#database.listen(
      IDENTITY_CHANNEL,
      (payload) => {
        const change = parseIdentityChange(payload);
        if (change) this.invalidate(change);
      },
      // The listening connection was lost and is back: changes may have gone unheard.
      () => this.#forgetAll(),
    );
  }

  async stop(): Promise<void> {
    const unlisten = this.#unlisten;
    this.#unlisten = undefined;
    await unlisten?.();
  }

  /** Verifies the key and checks the request against it; throws the spec's 401/403/404 codes. */
  async authenticate(keyValue: string | undefined, access: AccessRequest): Promise<Principal> {
    const principal = await this.verify(keyValue, access.clientIp);
    authorize(principal, access);
    return principal;
  }

  /**
   * `authenticate` without a promise for the common case, a valid key whose resolution is
   * cached: its principal, checked against the request (throws as `authorize` does). Undefined
   * when `authenticate` must run (not cached, or anything but a valid key, whose error it throws).
   * Each promise of the async path costs a microtask on every request (docs/benchmarks.md, "HTTP layer").
   */
  authenticateCached(keyValue: string | undefined, access: AccessRequest): Principal | undefined {
    if (keyValue === undefined || !isWellFormedKeyValue(keyValue)) return undefined;
    const cached = this.#cache.get(this.#hashOf(keyValue));
    if (cached?.kind !== 'ok' || cached.principal.expiresAt <= this.#clock.now()) return undefined;
    this.#cacheHits?.inc();
    authorize(cached.principal, access);
    return cached.principal;
  }

  /**
   * Verifies the key alone: 401 missing/invalid/expired, AUTH_CONTEXT_MISSING, ORGANIZATION_NOT_FOUND;
   * 429 RATE_LIMIT_EXCEEDED, before any lookup, for a client whose lookups found no key too often.
   */
  async verify(keyValue: string | undefined, clientIp: string): Promise<Principal> {
    if (keyValue === undefined || keyValue === '') throw new ApiError('API_KEY_MISSING');
    if (!isWellFormedKeyValue(keyValue)) throw new ApiError('API_KEY_INVALID');
    const resolution = await this.#resolve(this.#hashOf(keyValue), clientIp);
    switch (resolution.kind) {
      case 'unknown':
        throw new ApiError('API_KEY_INVALID');
      case 'disabled':
        throw new ApiError('API_KEY_DISABLED', { message: 'This API key has been disabled.' });
      case 'no-organization':
        throw new ApiError('AUTH_CONTEXT_MISSING');
      case 'organization-deleted':
        throw new ApiError('ORGANIZATION_NOT_FOUND');
      case 'ok':
        if (resolution.principal.expiresAt <= this.#clock.now()) {
          throw new ApiError('API_KEY_EXPIRED', {
            message: `This API key expired at ${new Date(resolution.principal.expiresAt).toISOString()}.`,
          });
        }
        return resolution.principal;
    }
  }

  /**
   * Forgets what a change made stale. Called for changes heard on the channel and, by the
   * process that made a change, right after its commit (so its own next request sees it).
   */
  invalidate(change: IdentityChange): void {
    if ('created' in change) {
      this.#creations += 1;
      // A new key: a value tried before its creation may be cached as unknown.
      this.#cache.forgetUnknown();
    } else {
      this.#changes += 1;
      if ('keyId' in change) this.#cache.forgetKey(change.keyId);
      else this.#cache.forgetOrganization(change.organizationId);
    }
    this.#logger?.debug({ change }, 'identity cache invalidated');
  }

  #forgetAll(): void {
    this.#changes += 1;
    this.#creations += 1;
    this.#cache.clear();
    this.#logger?.warn('identity change feed reconnected; key cache cleared');
  }

  #hashOf(keyValue: string): string {
    let hash = this.#hashes.get(keyValue);
    if (hash === undefined) {
      hash = hashKeyValue(keyValue);
      this.#hashes.set(keyValue, hash);
    }
    return hash;
  }

  async #resolve(hash: string, clientIp: string): Promise<KeyResolution> {
    const now = this.#clock.now();
    const cached = this.#cache.get(hash);
    (cached ? this.#cacheHits : this.#cacheMisses)?.inc();
    if (cached) return cached;
    const changes = this.#changes;
    const creations = this.#creations;
    const generation = `${changes}/${creations}`;
    const pending = this.#inflight.get(hash);
    if (pending?.generation === generation) return pending.lookup;
    const waitMs = this.#unknownKeyBudget.take(clientIp);
    if (waitMs > 0) throw new ApiError('RATE_LIMIT_EXCEEDED', { headers: { 'retry-after': String(Math.ceil(waitMs / 1000)) } });
    const lookup = resolveKeyHash(this.#database.db, hash)
      .then((resolution) => {
        if (resolution.kind !== 'unknown') this.#unknownKeyBudget.giveBack(clientIp);
        const stale = changes !== this.#changes || (resolution.kind === 'unknown' && creations !== this.#creations);
        if (!stale) this.#cache.set(hash, resolution, now);
        return resolution;
      }, (error: unknown) => {
        // The database failed: nothing was learnt about the value, so it is not counted.
        this.#unknownKeyBudget.giveBack(clientIp);
        throw error;
      })
      .finally(() => {
        if (this.#inflight.get(hash)?.lookup === lookup) this.#inflight.delete(hash);
      });
    this.#inflight.set(hash, { lookup, generation });
    return lookup;
  }
}

/** The request-dependent checks, in the order a caller can act on: network, scope, origin. */
export function authorize(principal: Principal, access: AccessRequest): void {
  const keyNetwork = principal.project?.network;
  if (keyNetwork !== access.network) {
    throw new AccessRefusal('NETWORK_MISMATCH', principal, {
      message: keyNetwork
        ? `This key is bound to ${keyNetwork}; use the ${keyNetwork} endpoint instead of ${access.network}.`
        : `This key is not bound to ${access.network}.`,
    });
  }
  if (access.scope !== null && !principal.scopes.includes(access.scope)) {
    throw new AccessRefusal('INSUFFICIENT_SCOPE', principal, { message: `This operation needs the '${access.scope}' scope.` });
  }
  if (!isOriginAllowed(principal.allowedOrigins, access.origin)) {
    throw new AccessRefusal('ORIGIN_NOT_ALLOWED', principal, {
      message: access.origin ? `Origin ${access.origin} is not allowed for this key.` : 'This key requires an allowed Origin header.',
    });
  }
}
