import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { deriveSubkey, ManualClock } from '../core/index.js';
import type { Principal } from './principal.js';
import { SignedIdentity, type SignedRequest } from './signed-identity.js';

const principal: Principal = {
  keyId: 'key_5UkucH38VHZYX5EnC', keyName: 'production backend', keyKind: 'standard', expiresAt: Date.UTC(2027, 0, 1), scopes: ['data', 'streams'], allowedOrigins: [],
  rateLimit: { perKeyRps: null, perIpRps: null },
  organization: { id: 'org_2ph8NxXjkXf3wtQMV', name: 'Acme Labs', tier: 'growth', walletAddress: null, subscription: null },
  project: { id: 'proj_4oqPr27hBDs4soYUT', name: 'Default', network: 'mainnet' },
};
const PATH = `/mainnet/v1/accounts/0x${'5'.repeat(64)}/balance`;
const signed: SignedRequest = {
  method: 'GET', path: PATH, network: 'mainnet', requestId: 'cf1b8348-9af9-412b-a7c7-338ec7fd5ea6', route: 'GET /v1/accounts/:address/balance', cost: 1, principal,
};
const { method: _method, path: _path, ...claims } = signed;
const SECRET = 'a-secret-of-at-least-thirty-two-characters';
const KEY = deriveSubkey(SECRET, 'identity-headers');

function signer(clock = new ManualClock(), secret = SECRET): SignedIdentity {
  return new SignedIdentity({ key: deriveSubkey(secret, 'identity-headers'), clock, maxAgeMs: 30_000 });
}

/** A token made by hand with the real key: what only a holder of the secret could make. */
function tokenOf(payload: unknown, version = 3): string {
  const encoded = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${encoded}.${createHmac('sha256', KEY).update(`suigw-identity.v${version}.`).update(encoded).digest('base64url')}`;
}

const fieldsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()) as unknown[];

describe('signed identity tokens: only authz can make one, for one request, for a short time', () => {
  it('a token verifies for its method and path, with every claim intact', () => {
    const clock = new ManualClock();
    const token = signer(clock).sign(signed);
    expect(signer(clock).verify(token, { method: 'get', path: PATH })).toEqual({ ...claims, issuedAt: clock.now() });
    // The ratelimit service does not know the request: it verifies the token alone.
    expect(signer(clock).verify(token)).toEqual({ ...claims, issuedAt: clock.now() });
  });

  it('every shape of principal and cost comes back as signed', () => {
    const clock = new ManualClock();
    const others: SignedRequest[] = [
      { ...signed, cost: undefined },
      { ...signed, cost: 'free' },
      { ...signed, cost: { credits: 5, clientErrorCredits: 1 } },
      { ...signed, principal: { ...principal, project: null } },
      // A page's request on a route browsers may call: the Origin its refusals reflect.
      { ...signed, corsOrigin: 'https://app.example' },
      // A project on another network than the request's (the token says so; the gateway refuses it).
      { ...signed, network: 'testnet', principal: { ...principal, project: { ...principal.project!, network: 'mainnet' } } },
      {
        ...signed,
        principal: {
          ...principal, keyKind: 'wallet', allowedOrigins: ['https://app.example'], scopes: ['data', 'streams', 'manage', 'zkLogin'], rateLimit: { perKeyRps: 5, perIpRps: 2 },
          organization: { ...principal.organization, name: 'Ünïcode “Labs”', walletAddress: `0x${'a'.repeat(64)}`, subscription: { plan: 'growth', status: 'past_due', periodEnd: Date.UTC(2026, 11, 1) } },
        },
      },
    ];
    for (const request of others) {
      const { method: _m, path: _p, ...expected } = request;
      expect(signer(clock).verify(signer(clock).sign(request), { method: 'GET', path: PATH })).toEqual({ ...expected, issuedAt: clock.now() });
    }
  });

  it('is compact: a typical principal on a REST path with an address signs to 482 characters (version 2, without corsOrigin: 475; version 1: 972)', () => {
    const token = signer(new ManualClock(Date.UTC(2026, 10, 27))).sign(signed);
    expect(token.length).toBe(482);
    // Neither the path nor the method travels: a digest of them does.
    expect(Buffer.from(token.split('.')[0]!, 'base64url').toString()).not.toContain(PATH);
  });

  it('another secret, another purpose, or an altered payload or MAC: refused', () => {
    const clock = new ManualClock();
    const token = signer(clock).sign(signed);
    expect(signer(clock, `${SECRET}-other`).verify(token)).toBeUndefined();
    const cursorKey = new SignedIdentity({ key: deriveSubkey(SECRET, 'cursors'), clock, maxAgeMs: 30_000 });
    expect(cursorKey.verify(token)).toBeUndefined();
    const [payload, mac] = token.split('.') as [string, string];
    const fields = fieldsOf(token);
    fields[11] = ['data', 'streams', 'manage'];
    expect(signer(clock).verify(`${Buffer.from(JSON.stringify(fields)).toString('base64url')}.${mac}`)).toBeUndefined();
    const flipped = `${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`;
    expect(signer(clock).verify(`${payload}.${flipped}`)).toBeUndefined();
    for (const junk of ['', '.', 'abc', `${payload}.`, `${payload}.${mac}.x`, `${payload}!.${mac}`, `${payload}.${mac}A`]) expect(signer(clock).verify(junk)).toBeUndefined();
  });

  it('a payload of another version, even under a valid MAC: refused (version 1 tokens included)', () => {
    const clock = new ManualClock();
    const fields = fieldsOf(signer(clock).sign(signed));
    expect(signer(clock).verify(tokenOf(fields))).toBeDefined();
    expect(signer(clock).verify(tokenOf([4, ...fields.slice(1)]))).toBeUndefined();
    expect(signer(clock).verify(tokenOf(fields.slice(0, -1)))).toBeUndefined();
    expect(signer(clock).verify(tokenOf([...fields, null]))).toBeUndefined();
    expect(signer(clock).verify(tokenOf({ ...fields }))).toBeUndefined();
    const withoutTime = [...fields];
    withoutTime[1] = String(withoutTime[1]);
    expect(signer(clock).verify(tokenOf(withoutTime))).toBeUndefined();
    // What authz signed before this version: an object under the v1 MAC.
    const v1 = { v: 1, ...signed, issuedAt: clock.now() };
    expect(signer(clock).verify(tokenOf(v1, 1))).toBeUndefined();
    expect(signer(clock).verify(tokenOf(v1, 2))).toBeUndefined();
    // Version 2 (no corsOrigin), under its own MAC: refused, as any other version.
    expect(signer(clock).verify(tokenOf([2, ...fields.slice(1, -1)], 2))).toBeUndefined();
  });

  it('stale (older than the maximum age) or from the future: refused', () => {
    const clock = new ManualClock();
    const token = signer(clock).sign(signed);
    clock.advance(30_000);
    expect(signer(clock).verify(token)).toBeDefined();
    clock.advance(1);
    expect(signer(clock).verify(token)).toBeUndefined();
    const early = new ManualClock(clock.now() - 60_000);
    expect(signer(early).verify(signer(clock).sign(signed))).toBeUndefined();
    // 30 s ahead still verifies; a millisecond more does not.
    const behind = new ManualClock(clock.now() - 30_000);
    expect(signer(behind).verify(signer(clock).sign(signed))).toBeDefined();
    expect(signer(new ManualClock(clock.now() - 30_001)).verify(signer(clock).sign(signed))).toBeUndefined();
  });

  it('replayed on another path or method: refused', () => {
    const clock = new ManualClock();
    const token = signer(clock).sign(signed);
    expect(signer(clock).verify(token, { method: 'GET', path: '/mainnet/v1/keys' })).toBeUndefined();
    expect(signer(clock).verify(token, { method: 'DELETE', path: PATH })).toBeUndefined();
    expect(signer(clock).verify(token, { method: 'GET', path: `${PATH}/` })).toBeUndefined();
    expect(signer(clock).verify(token, { method: 'GET /mainnet/v1/accounts/0x', path: `${'5'.repeat(64)}/balance` })).toBeUndefined();
  });
});
