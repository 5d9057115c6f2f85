import { ApiError, type Clock, type Logger, type Network } from '../core/index.js';
import type { Database } from '../db/index.js';
import { hashKeyValue, isWellFormedKeyValue } from './key-value.js';
import { isOriginAllowed } from './origins.js';
import { resolveKeyHash, type KeyResolution } from './principal-store.js';
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
}

export interface AuthenticatorOptions {
  database: Database;
  clock: Clock;
  /** How long a resolution stays cached; NOTIFY invalidation usually ends it sooner. */
  ttlMs: number;
  logger?: Logger;
  maxEntries?: number;
}

interface CacheEntry {
  resolution: KeyResolution;
  cachedAt: number;
}

/**
 * Verifies keys and checks access. The one implementation behind every adapter: the fastify
 * hook, the gRPC interceptor and Envoy's ext_authz service all call `authenticate`.
 */
export class Authenticator {
  readonly #database: Database;
  readonly #clock: Clock;
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #logger: Logger | undefined;
  readonly #cache = new Map<string, CacheEntry>();
  readonly #inflight = new Map<string, Promise<KeyResolution>>();
  #unlisten: (() => Promise<void>) | undefined;

  constructor(options: AuthenticatorOptions) {
    this.#database = options.database;
    this.#clock = options.clock;
    this.#ttlMs = options.ttlMs;
    this.#maxEntries = options.maxEntries ?? 100_000;
    this.#logger = options.logger;
  }

  /** Starts following identity changes from every process. */
  async start(): Promise<void> {
    this.#unlisten ??= await this.#database.listen(IDENTITY_CHANNEL, (payload) => {
      const change = parseIdentityChange(payload);
      if (change) this.invalidate(change);
    });
  }

  async stop(): Promise<void> {
    const unlisten = this.#unlisten;
    this.#unlisten = undefined;
    await unlisten?.();
  }

  /** Verifies the key and checks the request against it; throws the spec's 401/403/404 codes. */
  async authenticate(keyValue: string | undefined, access: AccessRequest): Promise<Principal> {
    const principal = await this.verify(keyValue);
    authorize(principal, access);
    return principal;
  }

  /** Verifies the key alone: 401 missing/invalid/expired, AUTH_CONTEXT_MISSING, ORGANIZATION_NOT_FOUND. */
  async verify(keyValue: string | undefined): Promise<Principal> {
    if (keyValue === undefined || keyValue === '') throw new ApiError('API_KEY_MISSING');
    if (!isWellFormedKeyValue(keyValue)) throw new ApiError('API_KEY_INVALID');
    const resolution = await this.#resolve(hashKeyValue(keyValue));
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

  invalidate(change: IdentityChange): void {
    if ('keyId' in change) {
      for (const [hash, entry] of this.#cache) if (keyIdOf(entry.resolution) === change.keyId) this.#cache.delete(hash);
    } else if ('organizationId' in change) {
      for (const [hash, entry] of this.#cache) {
        if (organizationIdOf(entry.resolution) === change.organizationId) this.#cache.delete(hash);
      }
    } else {
      // A new key: a value tried before its creation may be cached as unknown.
      for (const [hash, entry] of this.#cache) if (entry.resolution.kind === 'unknown') this.#cache.delete(hash);
    }
    this.#logger?.debug({ change }, 'identity cache invalidated');
  }

  async #resolve(hash: string): Promise<KeyResolution> {
    const now = this.#clock.now();
    const cached = this.#cache.get(hash);
    if (cached && now - cached.cachedAt < this.#ttlMs) return cached.resolution;
    const pending = this.#inflight.get(hash);
    if (pending) return pending;
    const lookup = resolveKeyHash(this.#database.db, hash)
      .then((resolution) => {
        if (this.#ttlMs > 0) this.#remember(hash, { resolution, cachedAt: now });
        return resolution;
      })
      .finally(() => this.#inflight.delete(hash));
    this.#inflight.set(hash, lookup);
    return lookup;
  }

  #remember(hash: string, entry: CacheEntry): void {
    this.#cache.delete(hash);
    this.#cache.set(hash, entry);
    if (this.#cache.size > this.#maxEntries) {
      const oldest = this.#cache.keys().next().value;
      if (oldest !== undefined) this.#cache.delete(oldest);
    }
  }
}

/** The request-dependent checks, in the order a caller can act on: network, scope, origin. */
export function authorize(principal: Principal, access: AccessRequest): void {
  const keyNetwork = principal.project?.network;
  if (keyNetwork !== access.network) {
    throw new ApiError('NETWORK_MISMATCH', {
      message: keyNetwork
        ? `This key is bound to ${keyNetwork}; use the ${keyNetwork} endpoint instead of ${access.network}.`
        : `This key is not bound to ${access.network}.`,
    });
  }
  if (access.scope !== null && !principal.scopes.includes(access.scope)) {
    throw new ApiError('INSUFFICIENT_SCOPE', { message: `This operation needs the '${access.scope}' scope.` });
  }
  if (!isOriginAllowed(principal.allowedOrigins, access.origin)) {
    throw new ApiError('ORIGIN_NOT_ALLOWED', {
      message: access.origin ? `Origin ${access.origin} is not allowed for this key.` : 'This key requires an allowed Origin header.',
    });
  }
}

function keyIdOf(resolution: KeyResolution): string | undefined {
  return resolution.kind === 'ok' ? resolution.principal.keyId : resolution.kind === 'unknown' ? undefined : resolution.keyId;
}

function organizationIdOf(resolution: KeyResolution): string | null | undefined {
  switch (resolution.kind) {
    case 'ok':
      return resolution.principal.organization.id;
    case 'disabled':
    case 'organization-deleted':
      return resolution.organizationId;
    default:
      return undefined;
  }
}
