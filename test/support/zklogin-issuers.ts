import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import { ZKLOGIN_ISSUERS } from '../../services/core/index.js';

export type Issuer = (typeof ZKLOGIN_ISSUERS)[number];
export const GOOGLE: Issuer = 'https://accounts.google.com';

interface SigningKey { kid: string; privateKey: CryptoKey; jwk: JWK }

async function newKey(kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
}

/**
 * The four zkLogin issuers for tests: each with its own RSA key, its JWKS served over HTTP on
 * loopback (as the real issuers serve theirs), and a signer of id_tokens. `SUIGW_ZKLOGIN_ISSUER_JWKS`
 * points the gateway at these JWKS URLs.
 */
export interface TestIssuers {
  /** The gateway setting: every issuer → its local JWKS URL. */
  jwksEnv: string;
  /** JWKS fetches per issuer so far. */
  fetches(issuer: Issuer): number;
  /** Publishes a new key (kid `k<n>`) for the issuer and returns its kid; tokens can be signed with it. */
  rotate(issuer: Issuer): Promise<string>;
  /** `up` serves the keys; `down` answers 503 (the issuer's keys cannot be fetched). */
  setMode(mode: 'up' | 'down'): void;
  /** A signed id_token of `issuer` (default Google) with the claims; `kid` picks a published key. */
  sign(claims: JWTPayload, options?: { issuer?: Issuer; kid?: string; foreign?: boolean; header?: Record<string, unknown> }): Promise<string>;
  stop(): Promise<void>;
}

export async function startTestIssuers(): Promise<TestIssuers> {
  const keys = new Map<Issuer, SigningKey[]>();
  for (const issuer of ZKLOGIN_ISSUERS) keys.set(issuer, [await newKey('k1')]);
  const foreign = await newKey('k1');
  const fetchCount = new Map<Issuer, number>();
  let mode: 'up' | 'down' = 'up';
  const server = http.createServer((request, response) => {
    const index = Number(/^\/jwks\/(\d)$/.exec(request.url ?? '')?.[1]);
    const issuer = ZKLOGIN_ISSUERS[index];
    if (!issuer) return void response.writeHead(404).end();
    fetchCount.set(issuer, (fetchCount.get(issuer) ?? 0) + 1);
    if (mode === 'down') return void response.writeHead(503, { 'content-type': 'text/plain' }).end('unavailable');
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: keys.get(issuer)!.map((key) => key.jwk) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const urls = Object.fromEntries(ZKLOGIN_ISSUERS.map((issuer, index) => [issuer, `http://127.0.0.1:${port}/jwks/${index}`]));
  return {
    jwksEnv: JSON.stringify(urls),
    fetches: (issuer) => fetchCount.get(issuer) ?? 0,
    async rotate(issuer) {
      const list = keys.get(issuer)!;
      const key = await newKey(`k${list.length + 1}`);
      list.push(key);
      return key.kid;
    },
    setMode(next) { mode = next; },
    async sign(claims, options = {}) {
      const issuer = options.issuer ?? GOOGLE;
      const kid = options.kid ?? 'k1';
      const key = options.foreign ? foreign : keys.get(issuer)!.find((k) => k.kid === kid);
      if (!key) throw new Error(`no key ${kid} for ${issuer}`);
      return new SignJWT({ iss: issuer, ...claims }).setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT', ...options.header }).sign(key.privateKey);
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
