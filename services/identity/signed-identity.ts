import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Clock, Network } from '../core/index.js';
import type { Principal } from './principal.js';

/**
 * The identity headers `suigw authz` adds to a request it allows (docs/envoy.md). Only the token
 * is authoritative: it carries the whole decision under an HMAC. The others repeat parts of it in
 * plain text for Envoy's rate-limit descriptors and access logs; services never read them. Every
 * one of them is removed from a request whose token does not verify.
 */
export const IDENTITY_HEADERS = {
  token: 'x-suigw-identity',
  organization: 'x-suigw-organization-id',
  project: 'x-suigw-project-id',
  keyId: 'x-suigw-key-id',
  network: 'x-suigw-network',
  scopes: 'x-suigw-scopes',
  plan: 'x-suigw-plan',
} as const;

export const IDENTITY_HEADER_NAMES: readonly string[] = Object.values(IDENTITY_HEADERS);

/** What authz decided about one request, as signed into the token. */
export interface IdentityClaims {
  /** When authz decided, Unix ms (the token is refused once older than the configured age). */
  issuedAt: number;
  /** The request it was decided for: a token is valid for that method and path only. */
  method: string;
  /** The path as the client sent it, without the query. */
  path: string;
  network: Network;
  /** The request id, so a refusal by the ratelimit service carries the same id as the request. */
  requestId: string;
  /** The matched route, "METHOD /v1/path/:param", and what it costs (the ratelimit service reads both). */
  route: string;
  cost: unknown;
  principal: Principal;
}

const VERSION = 1;
const TOKEN = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{43})$/;

export interface SignedIdentityOptions {
  /** `deriveSubkey(secret, 'identity-headers')`: the same on authz and on every service behind Envoy. */
  key: Buffer;
  clock: Clock;
  maxAgeMs: number;
}

/**
 * Signs and verifies identity tokens: `base64url(JSON claims) "." base64url(HMAC-SHA256)`.
 * A token verifies only with the shared subkey, within `maxAgeMs` of its issue (and not from the
 * future beyond that), and for the method and path it was issued for.
 */
export class SignedIdentity {
  readonly #key: Buffer;
  readonly #clock: Clock;
  readonly #maxAgeMs: number;

  constructor(options: SignedIdentityOptions) {
    this.#key = options.key;
    this.#clock = options.clock;
    this.#maxAgeMs = options.maxAgeMs;
  }

  sign(claims: Omit<IdentityClaims, 'issuedAt'>): string {
    const payload = Buffer.from(JSON.stringify({ v: VERSION, ...claims, issuedAt: this.#clock.now() })).toString('base64url');
    return `${payload}.${this.#mac(payload).toString('base64url')}`;
  }

  /** The claims of a valid token for this request, or `undefined` (forged, stale, another request). */
  verify(token: string | undefined, request?: { method: string; path: string }): IdentityClaims | undefined {
    const match = token === undefined ? null : TOKEN.exec(token);
    if (!match) return undefined;
    const [, payload, mac] = match as unknown as [string, string, string];
    const expected = this.#mac(payload);
    const given = Buffer.from(mac, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    const claims = parseClaims(payload);
    if (!claims) return undefined;
    const age = this.#clock.now() - claims.issuedAt;
    if (age > this.#maxAgeMs || age < -this.#maxAgeMs) return undefined;
    if (request && (request.method.toUpperCase() !== claims.method || request.path !== claims.path)) return undefined;
    return claims;
  }

  #mac(payload: string): Buffer {
    return createHmac('sha256', this.#key).update(`suigw-identity.v${VERSION}.`).update(payload).digest();
  }
}

function parseClaims(payload: string): IdentityClaims | undefined {
  try {
    const value = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Partial<IdentityClaims> & { v?: unknown };
    // The MAC proves authz wrote it; the checks guard against a token of another version.
    if (value.v !== VERSION || typeof value.issuedAt !== 'number' || typeof value.method !== 'string') return undefined;
    if (typeof value.path !== 'string' || typeof value.network !== 'string' || typeof value.principal !== 'object') return undefined;
    const { v: _version, ...claims } = value;
    return claims as IdentityClaims;
  } catch {
    return undefined;
  }
}

/** The path of a request target, without its query. */
export function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}
