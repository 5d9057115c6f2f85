import { describe, expect, it } from 'vitest';
import { deriveSubkey, ManualClock } from '../core/index.js';
import type { Principal } from './principal.js';
import { SignedIdentity, type IdentityClaims } from './signed-identity.js';

const principal: Principal = {
  keyId: 'key_1', keyName: 'k', keyKind: 'standard', expiresAt: Date.UTC(2027, 0, 1), scopes: ['data'], allowedOrigins: [],
  rateLimit: { perKeyRps: null, perIpRps: null },
  organization: { id: 'org_1', name: 'Acme', tier: 'team', walletAddress: null, subscription: null },
  project: { id: 'proj_1', name: 'Default', network: 'mainnet' },
};
const claims: Omit<IdentityClaims, 'issuedAt'> = {
  method: 'GET', path: '/mainnet/v1/objects/0x1', network: 'mainnet', requestId: 'r1', route: 'GET /v1/objects/:id', cost: 1, principal,
};
const SECRET = 'a-secret-of-at-least-thirty-two-characters';

function signer(clock = new ManualClock(), secret = SECRET): SignedIdentity {
  return new SignedIdentity({ key: deriveSubkey(secret, 'identity-headers'), clock, maxAgeMs: 30_000 });
}

describe('signed identity tokens: only authz can make one, for one request, for a short time', () => {
  it('a token verifies for its method and path, with every claim intact', () => {
    const clock = new ManualClock();
    const token = signer(clock).sign(claims);
    expect(signer(clock).verify(token, { method: 'get', path: claims.path })).toEqual({ ...claims, issuedAt: clock.now() });
  });

  it('another secret, another purpose, or an altered payload or MAC: refused', () => {
    const clock = new ManualClock();
    const token = signer(clock).sign(claims);
    expect(signer(clock, `${SECRET}-other`).verify(token)).toBeUndefined();
    const cursorKey = new SignedIdentity({ key: deriveSubkey(SECRET, 'cursors'), clock, maxAgeMs: 30_000 });
    expect(cursorKey.verify(token)).toBeUndefined();
    const [payload, mac] = token.split('.') as [string, string];
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), principal: { ...principal, scopes: ['manage'] } }));
    expect(signer(clock).verify(`${forged.toString('base64url')}.${mac}`)).toBeUndefined();
    const flipped = `${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`;
    expect(signer(clock).verify(`${payload}.${flipped}`)).toBeUndefined();
    for (const junk of ['', '.', 'abc', `${payload}.`, `${payload}.${mac}.x`, `${payload}!.${mac}`]) expect(signer(clock).verify(junk)).toBeUndefined();
  });

  it('stale (older than the maximum age) or from the future: refused', () => {
    const clock = new ManualClock();
    const token = signer(clock).sign(claims);
    clock.advance(30_000);
    expect(signer(clock).verify(token)).toBeDefined();
    clock.advance(1);
    expect(signer(clock).verify(token)).toBeUndefined();
    const early = new ManualClock(clock.now() - 60_000);
    expect(signer(early).verify(signer(clock).sign(claims))).toBeUndefined();
  });

  it('replayed on another path or method: refused', () => {
    const clock = new ManualClock();
    const token = signer(clock).sign(claims);
    expect(signer(clock).verify(token, { method: 'GET', path: '/mainnet/v1/keys' })).toBeUndefined();
    expect(signer(clock).verify(token, { method: 'DELETE', path: claims.path })).toBeUndefined();
  });
});
