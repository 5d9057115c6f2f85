import { createHmac, hash, timingSafeEqual } from 'node:crypto';
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

/** What authz decided about one request, as a verified token gives it back. */
export interface IdentityClaims {
  /** When authz decided, Unix ms (the token is refused once older than the configured age). */
  issuedAt: number;
  network: Network;
  /** The request id, so a refusal by the ratelimit service carries the same id as the request. */
  requestId: string;
  /** The matched route, "METHOD /v1/path/:param", and what it costs (the ratelimit service reads both). */
  route: string;
  cost: unknown;
  principal: Principal;
  /**
   * The request's Origin when its route answers browsers (`servesCors`), else undefined: what a
   * refusal sent before Envoy's cors filter (the ratelimit service's 429) reflects, so a page can
   * read it, as the gateway's own refusals.
   */
  corsOrigin?: string | undefined;
}

/** What authz signs: the claims, and the request they were decided for. */
export interface SignedRequest extends Omit<IdentityClaims, 'issuedAt'> {
  /** The request's method (upper case) and its path as the client sent it, without the query: the token is valid for that request only. */
  method: string;
  path: string;
}

const VERSION = 3;
const TOKEN = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{43})$/;
/** Fields of the version-3 payload (see `encodeClaims`). */
const FIELDS = 22;

export interface SignedIdentityOptions {
  /** `deriveSubkey(secret, 'identity-headers')`: the same on authz and on every service behind Envoy. */
  key: Buffer;
  clock: Clock;
  maxAgeMs: number;
}

/**
 * Signs and verifies identity tokens: `base64url(payload) "." base64url(HMAC-SHA256)`, the MAC
 * over "suigw-identity.v3." and the payload. A token verifies only with the shared subkey, within
 * `maxAgeMs` of its issue (and not from the future beyond that), and, where the request is known
 * (the gateway), for the method and path it was issued for.
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

  sign(request: SignedRequest): string {
    const payload = Buffer.from(encodeClaims(this.#clock.now(), request)).toString('base64url');
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
    const claims = decodeClaims(payload, request && requestDigest(request.method.toUpperCase(), request.path));
    if (!claims) return undefined;
    const age = this.#clock.now() - claims.issuedAt;
    if (age > this.#maxAgeMs || age < -this.#maxAgeMs) return undefined;
    return claims;
  }

  #mac(payload: string): Buffer {
    return createHmac('sha256', this.#key).update(`suigw-identity.v${VERSION}.`).update(payload).digest();
  }
}

/**
 * The request a token is for, as 22 base64url characters (132 bits) of SHA-256 over
 * "METHOD path": the gateway, which has the request, compares; the ratelimit service, which does
 * not, has no use for the path, so the token need not carry it (a REST path with an address is
 * over 100 characters).
 */
function requestDigest(method: string, path: string): string {
  return hash('sha256', `${method} ${path}`, 'base64url').slice(0, 22);
}

/**
 * Version 3 of the payload: one JSON array, each claim at its position instead of under its name
 * (version 1, an object with every name, the method and the path, was about twice the size;
 * version 2 had no `corsOrigin`, position 21):
 *
 * | # | claim | # | claim |
 * |---|---|---|---|
 * | 0 | 3 (the version) | 11 | principal.scopes |
 * | 1 | issuedAt | 12 | principal.allowedOrigins |
 * | 2 | request digest (method and path) | 13, 14 | principal.rateLimit.perKeyRps, .perIpRps |
 * | 3 | requestId | 15, 16 | principal.organization.id, .name |
 * | 4 | network | 17, 18 | principal.organization.tier, .walletAddress |
 * | 5 | route | 19 | principal.organization.subscription: [plan, status, periodEnd] or null |
 * | 6 | cost (null: none) | 20 | principal.project: [id, name], [id, name, network] when its network is not (4), or null |
 * | 7-10 | principal.keyId, .keyName, .keyKind, .expiresAt | 21 | corsOrigin, or null |
 */
function encodeClaims(issuedAt: number, request: SignedRequest): string {
  const { principal, network } = request;
  const { organization, project, rateLimit } = principal;
  const subscription = organization.subscription;
  return JSON.stringify([
    VERSION, issuedAt, requestDigest(request.method, request.path), request.requestId, network, request.route, request.cost ?? null,
    principal.keyId, principal.keyName, principal.keyKind, principal.expiresAt, principal.scopes, principal.allowedOrigins,
    rateLimit.perKeyRps, rateLimit.perIpRps,
    organization.id, organization.name, organization.tier, organization.walletAddress,
    subscription === null ? null : [subscription.plan, subscription.status, subscription.periodEnd],
    project === null ? null : project.network === network ? [project.id, project.name] : [project.id, project.name, project.network],
    request.corsOrigin ?? null,
  ]);
}

/** The claims of a payload whose MAC verified; undefined for another version, or for another request than `digest`. */
function decodeClaims(payload: string, digest: string | undefined): IdentityClaims | undefined {
  let fields: unknown;
  try {
    fields = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  // The MAC proves authz wrote it; the checks guard against a token of another version.
  if (!Array.isArray(fields) || fields.length !== FIELDS || fields[0] !== VERSION) return undefined;
  const issuedAt: unknown = fields[1];
  const request: unknown = fields[2];
  const network: unknown = fields[4];
  if (typeof issuedAt !== 'number' || typeof request !== 'string' || typeof network !== 'string') return undefined;
  if (digest !== undefined && request !== digest) return undefined;
  const subscription = fields[19] as [string | null, string | null, number | null] | null;
  const project = fields[20] as [string, string, Network?] | null;
  return {
    issuedAt,
    network: network as Network,
    requestId: fields[3] as string,
    route: fields[5] as string,
    cost: fields[6] ?? undefined,
    principal: {
      keyId: fields[7] as string,
      keyName: fields[8] as string,
      keyKind: fields[9] as Principal['keyKind'],
      expiresAt: fields[10] as number,
      scopes: fields[11] as Principal['scopes'],
      allowedOrigins: fields[12] as string[],
      rateLimit: { perKeyRps: fields[13] as number | null, perIpRps: fields[14] as number | null },
      organization: {
        id: fields[15] as string,
        name: fields[16] as string,
        tier: fields[17] as string,
        walletAddress: fields[18] as string | null,
        subscription: subscription === null ? null : { plan: subscription[0], status: subscription[1], periodEnd: subscription[2] },
      },
      project: project === null ? null : { id: project[0], name: project[1], network: project[2] ?? (network as Network) },
    },
    corsOrigin: (fields[21] as string | null) ?? undefined,
  };
}

/** The path of a request target, without its query. */
export function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}
