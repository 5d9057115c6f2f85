import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyVia } from '../../test/support/management-calls.js';
import { createTestApp } from '../../test/support/test-app.js';
import { startTestProverServer, type TestProverServer } from '../../test/support/zklogin-prover-server.js';
import { CLIENT_ID, startZkLoginE2E, type ZkLoginE2E, type ZkResponse } from '../../test/support/zklogin-e2e.js';
import { HttpProver } from './index.js';

/** Every row of the spec's zkLogin error table, through HTTP. */
let e2e: ZkLoginE2E;
let proverServer: TestProverServer;

beforeAll(async () => {
  proverServer = await startTestProverServer();
  e2e = await startZkLoginE2E({ prover: new HttpProver({ url: proverServer.url, timeoutMs: 5_000 }), deadTestnet: true });
});
afterAll(async () => {
  await e2e.stop();
  await proverServer.stop();
});

const address = (body: unknown, options: { key?: string; network?: 'mainnet' | 'testnet' | 'devnet' } = {}) => e2e.call('POST', '/v1/zklogin/address', { body, ...options });
const nonce = (body: unknown, options: { key?: string; network?: 'mainnet' | 'testnet' | 'devnet' } = {}) => e2e.call('POST', '/v1/zklogin/nonce', { body, ...options });
const prove = (body: unknown, options: { key?: string; network?: 'mainnet' | 'testnet' | 'devnet' } = {}) => e2e.call('POST', '/v1/zklogin/prove', { body, ...options });

function expectError(response: ZkResponse, status: number, code: string | undefined): void {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  if (code === undefined) expect(response.body.code).toBeUndefined();
  else expect(response.body.code).toBe(code);
  expect(response.body.error).toEqual(expect.any(String));
  expect(response.body.data).toBeUndefined();
}

/** 429 PROOF_RATE_LIMITED and the 503s: a Retry-After header with the body's `retryAfter`. */
function expectRetryAfter(response: ZkResponse): void {
  expect(response.body.retryAfter).toEqual(expect.any(Number));
  expect(response.body.retryAfter).toBeGreaterThan(0);
  expect(response.headers['retry-after']).toBe(String(response.body.retryAfter));
}

/** A valid prove body: a session whose JWT nonce matches (key, maxEpoch, randomness). */
async function proveBody(overrides: { maxEpoch?: number; claims?: Record<string, unknown> } = {}) {
  const maxEpoch = overrides.maxEpoch ?? e2e.currentEpoch() + 2;
  const session = e2e.session(maxEpoch);
  const jwt = await e2e.jwt({ nonce: session.nonce, ...overrides.claims });
  return { jwt, extendedEphemeralPublicKey: session.extendedEphemeralPublicKey, maxEpoch, jwtRandomness: session.randomness };
}

describe('400 VALIDATION_FAILED (all): schema mismatch', () => {
  it.each([
    ['address', '/v1/zklogin/address', {}],
    ['address', '/v1/zklogin/address', { jwt: 42 }],
    ['nonce', '/v1/zklogin/nonce', {}],
    ['nonce', '/v1/zklogin/nonce', { extendedEphemeralPublicKey: 'AA==', epochs: 1.5 }],
    ['prove', '/v1/zklogin/prove', { jwt: 'a.b.c', extendedEphemeralPublicKey: 'AA==', jwtRandomness: '1' }],
    ['prove', '/v1/zklogin/prove', { jwt: 'a.b.c', extendedEphemeralPublicKey: 'AA==', maxEpoch: 1, jwtRandomness: 'x1' }],
  ])('%s %#', async (_name, path, body) => {
    expectError(await e2e.call('POST', path, { body }), 400, 'VALIDATION_FAILED');
  });

  it('a salt (or any unknown field) is refused, never used', async () => {
    expectError(await prove({ ...(await proveBody()), salt: '1' }), 400, 'VALIDATION_FAILED');
    expectError(await address({ jwt: await e2e.jwt(), salt: '1' }), 400, 'VALIDATION_FAILED');
  });

  it('a body that is not JSON is 415 UNSUPPORTED_MEDIA_TYPE, bad JSON 400 INVALID_BODY', async () => {
    expectError(await e2e.call('POST', '/v1/zklogin/address', { raw: 'jwt=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectError(await e2e.call('POST', '/v1/zklogin/address', {}), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectError(await e2e.call('POST', '/v1/zklogin/nonce', { raw: '{"extendedEphemeralPublicKey":', headers: { 'content-type': 'application/json' } }), 400, 'INVALID_BODY');
  });
});

describe('a body refused before the schema is looked at costs what a schema failure does: 1 credit, not a 4xx\'s 2', () => {
  it.each([
    ['broken JSON', Buffer.from('{"jwt":'), {}, 400, 'INVALID_BODY'],
    ['not UTF-8', Buffer.from([0x7b, 0x22, 0x6a, 0xff, 0x22, 0x3a, 0x31, 0x7d]), {}, 400, 'INVALID_BODY'],
    ['a prototype key', Buffer.from('{"__proto__":{"jwt":"x"}}'), {}, 400, 'INVALID_BODY'],
    ['a NUL in a string', Buffer.from('{"jwt":"a\\u0000b"}'), {}, 400, 'VALIDATION_FAILED'],
    ['a compressed body', Buffer.from('{}'), { 'content-encoding': 'gzip' }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
  ] as const)('prove, %s', async (_name, payload, headers, status, code) => {
    const caller = await e2e.newCaller();
    const credits = async () => Number((await e2e.call('GET', '/v1/account', { key: caller.key })).headers['x-svc-credit-remaining']);
    const before = await credits();
    const response = await e2e.gateway.app.inject({
      method: 'POST', url: '/mainnet/v1/zklogin/prove', payload, headers: { 'x-api-key': caller.key, 'content-type': 'application/json', ...headers },
    });
    expect(response.statusCode, response.body).toBe(status);
    expect(response.json()).toMatchObject({ code });
    expect(before - (await credits())).toBe(1);
  });
});

describe('400 INVALID_JWT (address, prove): bad signature, expired, malformed, array audience', () => {
  it('a signature by another key', async () => {
    const jwt = await e2e.jwt({}, { foreign: true });
    expectError(await address({ jwt }), 400, 'INVALID_JWT');
    expectError(await prove({ ...(await proveBody()), jwt }), 400, 'INVALID_JWT');
  });

  it('an expired token (on the service clock)', async () => {
    const now = Math.floor(e2e.gateway.clock.now() / 1000);
    const jwt = await e2e.jwt({ iat: now - 7200, exp: now - 60 });
    expectError(await address({ jwt }), 400, 'INVALID_JWT');
    const body = await proveBody({ claims: { iat: now - 7200, exp: now - 60 } });
    expectError(await prove(body), 400, 'INVALID_JWT');
  });

  it('a token issued in the future (iat an hour ahead of the service clock)', async () => {
    const now = Math.floor(e2e.gateway.clock.now() / 1000);
    const claims = { iat: now + 3600, exp: now + 7200 };
    const refused = await address({ jwt: await e2e.jwt(claims) });
    expectError(refused, 400, 'INVALID_JWT');
    expect(refused.body.message).toBe('The token is issued in the future (iat more than 60 s ahead of the service clock).');
    const asked = proverServer.requests();
    expectError(await prove(await proveBody({ claims })), 400, 'INVALID_JWT');
    expect(proverServer.requests()).toBe(asked);
  });

  it.each(['not-a-jwt', 'a.b.c', 'eyJhbGciOiJub25lIn0.eyJpc3MiOiJodHRwczovL2FjY291bnRzLmdvb2dsZS5jb20ifQ.', ''])('malformed: %j', async (jwt) => {
    expectError(await address({ jwt }), 400, 'INVALID_JWT');
  });

  it('an unsigned token (alg none) with a supported issuer', async () => {
    const header = Buffer.from(JSON.stringify({ alg: 'none', kid: 'k1' })).toString('base64url');
    const payload = Buffer.from(JSON.stringify({ iss: 'https://accounts.google.com', aud: CLIENT_ID, sub: 'x', exp: 4_000_000_000 })).toString('base64url');
    expectError(await address({ jwt: `${header}.${payload}.` }), 400, 'INVALID_JWT');
  });

  it('an array audience', async () => {
    const jwt = await e2e.jwt({ aud: [CLIENT_ID] });
    expectError(await address({ jwt }), 400, 'INVALID_JWT');
    expectError(await prove({ ...(await proveBody({ claims: { aud: [CLIENT_ID] } })) }), 400, 'INVALID_JWT');
  });

  it('a token too long for the circuit (no address can exist for it), on prove too: refused before the prover', async () => {
    const jwt = await e2e.jwt({ padding: 'x'.repeat(2_000) });
    expectError(await address({ jwt }), 400, 'INVALID_JWT');
    const asked = proverServer.requests();
    const refused = await prove(await proveBody({ claims: { padding: 'x'.repeat(2_000) } }));
    expectError(refused, 400, 'INVALID_JWT');
    expect(refused.body.message).toBe('The token is too long for zkLogin.');
    expect(proverServer.requests()).toBe(asked);
  });

  it('a key id the issuer does not publish', async () => {
    const jwt = await e2e.issuers.sign({ aud: CLIENT_ID, sub: 's', exp: Math.floor(e2e.gateway.clock.now() / 1000) + 60 }, { foreign: true, header: { kid: 'nope' } });
    expectError(await address({ jwt }), 400, 'INVALID_JWT');
  });
});

describe('400 UNSUPPORTED_ISSUER (address, prove)', () => {
  it.each(['https://evil.example', 'accounts.google.com', 'https://accounts.google.com/', 'https://www.facebook.com/x'])('iss %s', async (iss) => {
    const jwt = await e2e.jwt({ iss });
    expectError(await address({ jwt }), 400, 'UNSUPPORTED_ISSUER');
    expectError(await prove({ ...(await proveBody({ claims: { iss } })) }), 400, 'UNSUPPORTED_ISSUER');
  });
});

describe('400 NETWORK_NOT_SUPPORTED (nonce, prove): devnet key', () => {
  it('refuses a devnet key', async () => {
    const devnet = await e2e.newCaller({ network: 'devnet' });
    expectError(await nonce({ extendedEphemeralPublicKey: e2e.session(0).extendedEphemeralPublicKey }, { key: devnet.key, network: 'devnet' }), 400, 'NETWORK_NOT_SUPPORTED');
    expectError(await prove(await proveBody(), { key: devnet.key, network: 'devnet' }), 400, 'NETWORK_NOT_SUPPORTED');
  });
});

describe('400 INVALID_EPHEMERAL_KEY (nonce, prove): key not in extended form', () => {
  const raw = Buffer.from(new Ed25519Keypair().getPublicKey().toRawBytes()).toString('base64');
  const zkLoginFlag = Buffer.concat([Buffer.from([0x05]), Buffer.alloc(32, 7)]).toString('base64');
  it.each([['raw key without flag', raw], ['zkLogin flag', zkLoginFlag], ['not base64', '!!!!'], ['empty', ''], ['wrong length', Buffer.from([0, 1, 2]).toString('base64')]])('%s', async (_name, key) => {
    expectError(await nonce({ extendedEphemeralPublicKey: key }), 400, 'INVALID_EPHEMERAL_KEY');
    expectError(await prove({ ...(await proveBody()), extendedEphemeralPublicKey: key }), 400, 'INVALID_EPHEMERAL_KEY');
  });
});

describe('400 NONCE_MISMATCH (prove)', () => {
  it('the JWT nonce is not the nonce of (key, maxEpoch, randomness)', async () => {
    const body = await proveBody();
    expectError(await prove({ ...body, jwtRandomness: '42' }), 400, 'NONCE_MISMATCH');
    expectError(await prove({ ...body, maxEpoch: body.maxEpoch + 1 }), 400, 'NONCE_MISMATCH');
    expectError(await prove({ ...body, extendedEphemeralPublicKey: e2e.session(0).extendedEphemeralPublicKey }), 400, 'NONCE_MISMATCH');
    expectError(await prove({ ...body, jwt: await e2e.jwt() }), 400, 'NONCE_MISMATCH');
  });
});

describe('400 MAX_EPOCH_OUT_OF_RANGE (nonce, prove)', () => {
  it.each([31, -1, 1000])('nonce with epochs %d', async (epochs) => {
    expectError(await nonce({ extendedEphemeralPublicKey: e2e.session(0).extendedEphemeralPublicKey, epochs }), 400, 'MAX_EPOCH_OUT_OF_RANGE');
  });

  it('prove with maxEpoch past current + 30 (the nonce matching it)', async () => {
    expectError(await prove(await proveBody({ maxEpoch: e2e.currentEpoch() + 31 })), 400, 'MAX_EPOCH_OUT_OF_RANGE');
    expect((await prove(await proveBody({ maxEpoch: e2e.currentEpoch() + 30 }))).status).toBe(200);
  });

  it('prove with maxEpoch before the current epoch', async () => {
    const current = e2e.currentEpoch();
    expect(current).toBeGreaterThan(0);
    expectError(await prove(await proveBody({ maxEpoch: current - 1 })), 400, 'MAX_EPOCH_OUT_OF_RANGE');
  });
});

describe('401 (all): key missing or invalid, without a code', () => {
  it.each(['/v1/zklogin/address', '/v1/zklogin/nonce', '/v1/zklogin/prove'])('%s', async (path) => {
    expectError(await e2e.call('POST', path, { key: undefined, body: {} }), 401, undefined);
    expectError(await e2e.call('POST', path, { key: 'svc_pat_notakey', body: {} }), 401, undefined);
  });
});

describe('403 INSUFFICIENT_SCOPE (all)', () => {
  it.each(['/v1/zklogin/address', '/v1/zklogin/nonce', '/v1/zklogin/prove'])('%s without the zkLogin scope', async (path) => {
    const dataKey = (await createKeyVia(e2e.gateway, { scopes: ['data', 'manage'] })).apiKey;
    expectError(await e2e.call('POST', path, { key: dataKey, body: {} }), 403, 'INSUFFICIENT_SCOPE');
  });

  it('audiences need the manage scope', async () => {
    const zkOnly = (await createKeyVia(e2e.gateway, { scopes: ['zkLogin'] })).apiKey;
    expectError(await e2e.call('GET', '/v1/zklogin/audiences', { key: zkOnly }), 403, 'INSUFFICIENT_SCOPE');
    expectError(await e2e.call('POST', '/v1/zklogin/audiences', { key: zkOnly, body: { audience: 'x' } }), 403, 'INSUFFICIENT_SCOPE');
  });
});

describe('403 PLAN_REQUIRED (all): Free plan', () => {
  it.each(['/v1/zklogin/address', '/v1/zklogin/nonce', '/v1/zklogin/prove'])('%s, before the body is looked at; costs 1 credit', async (path) => {
    const free = await e2e.newCaller({ tier: 'free' });
    const before = Number((await e2e.call('GET', '/v1/account', { key: free.key })).headers['x-svc-credit-remaining']);
    expectError(await e2e.call('POST', path, { key: free.key, body: {} }), 403, 'PLAN_REQUIRED');
    const after = Number((await e2e.call('GET', '/v1/account', { key: free.key })).headers['x-svc-credit-remaining']);
    expect(before - after).toBe(1);
  });
});

describe('403 AUDIENCE_NOT_ALLOWED (address, prove)', () => {
  it('a client ID not on the list', async () => {
    const jwt = await e2e.jwt({ aud: 'someone-elses-client' });
    expectError(await address({ jwt }), 403, 'AUDIENCE_NOT_ALLOWED');
    expectError(await prove(await proveBody({ claims: { aud: 'someone-elses-client' } })), 403, 'AUDIENCE_NOT_ALLOWED');
  });

  it('a client ID the list could not hold (NUL, a lone surrogate) is not on it: 403, not a 503 from the database', async () => {
    for (const aud of ['client-1\u0000', 'client-\ud800']) {
      expectError(await address({ jwt: await e2e.jwt({ aud }) }), 403, 'AUDIENCE_NOT_ALLOWED');
      expectError(await prove(await proveBody({ claims: { aud } })), 403, 'AUDIENCE_NOT_ALLOWED');
    }
  });

  it("another organization's list does not count", async () => {
    const other = await e2e.newCaller({ audiences: [] });
    expectError(await address({ jwt: await e2e.jwt() }, { key: other.key }), 403, 'AUDIENCE_NOT_ALLOWED');
  });
});

describe('404 NOT_FOUND (all): zkLogin switched off', () => {
  it('SUIGW_ZKLOGIN_ENABLED=false', async () => {
    const off = await createTestApp({ env: { SUIGW_ZKLOGIN_ENABLED: 'false' } });
    try {
      for (const path of ['/v1/zklogin/address', '/v1/zklogin/nonce', '/v1/zklogin/prove']) {
        const response = await off.app.inject({ method: 'POST', url: `/mainnet${path}`, headers: { 'x-api-key': off.adminKey }, payload: {} });
        expect(response.statusCode).toBe(404);
        expect(response.json()).toMatchObject({ code: 'NOT_FOUND' });
      }
    } finally {
      await off.close();
    }
  });
});

describe('429 CU_QUOTA_EXCEEDED (all): credits used up', () => {
  it.each(['/v1/zklogin/address', '/v1/zklogin/nonce', '/v1/zklogin/prove'])('%s', async (path) => {
    // A wallet organization without prepaid credit has none to spend.
    const broke = await e2e.newCaller({ tier: 'wallet', prepaidMicroUsd: 0n });
    expectError(await e2e.call('POST', path, { key: broke.key, body: {} }), 429, 'CU_QUOTA_EXCEEDED');
  });
});

describe('502 PROVER_FAILED (prove): no proof made', () => {
  it('the prover service errs', async () => {
    proverServer.setMode('fail');
    try {
      expectError(await prove(await proveBody()), 502, 'PROVER_FAILED');
    } finally {
      proverServer.setMode('ok');
    }
    expect((await prove(await proveBody())).status).toBe(200);
  });

  it('no prover configured (the gateway default without SUIGW_ZKLOGIN_PROVER_URL)', async () => {
    const bare = await startZkLoginE2E();
    try {
      const maxEpoch = bare.currentEpoch() + 2;
      const session = bare.session(maxEpoch);
      const jwt = await bare.jwt({ nonce: session.nonce });
      const response = await bare.call('POST', '/v1/zklogin/prove', { body: { jwt, extendedEphemeralPublicKey: session.extendedEphemeralPublicKey, maxEpoch, jwtRandomness: session.randomness } });
      expectError(response, 502, 'PROVER_FAILED');
      expect(response.body.message).toContain('SUIGW_ZKLOGIN_PROVER_URL');
    } finally {
      await bare.stop();
    }
  });
});

describe('503 CHAIN_UNAVAILABLE (nonce, prove): current epoch unreadable', () => {
  it("the key's network upstream is down", async () => {
    const testnetKey = (await createKeyVia(e2e.gateway, { projectId: e2e.gateway.projects.testnet, scopes: ['zkLogin'] })).apiKey;
    const refusedNonce = await nonce({ extendedEphemeralPublicKey: e2e.session(0).extendedEphemeralPublicKey }, { key: testnetKey, network: 'testnet' });
    expectError(refusedNonce, 503, 'CHAIN_UNAVAILABLE');
    expectRetryAfter(refusedNonce);
    const refusedProof = await prove(await proveBody(), { key: testnetKey, network: 'testnet' });
    expectError(refusedProof, 503, 'CHAIN_UNAVAILABLE');
    expectRetryAfter(refusedProof);
  });
});

describe('503 SALT_UNAVAILABLE (address, prove): salt service down', () => {
  it("the issuer's keys cannot be fetched", async () => {
    // Facebook's keys were never fetched by this gateway, so nothing is cached.
    e2e.issuers.setMode('down');
    try {
      const jwt = await e2e.jwt({}, { issuer: 'https://www.facebook.com' });
      const refused = await address({ jwt });
      expectError(refused, 503, 'SALT_UNAVAILABLE');
      expectRetryAfter(refused);
    } finally {
      e2e.issuers.setMode('up');
    }
  });

  it("the salt service's store is unreachable; audience listing then fails as 500 INTERNAL_ERROR", async () => {
    const body = await proveBody();
    const jwt = await e2e.jwt();
    await e2e.gateway.db.database.db.schema.alterTable('zklogin_audiences').renameTo('zklogin_audiences_away').execute();
    try {
      const refusedAddress = await address({ jwt });
      expectError(refusedAddress, 503, 'SALT_UNAVAILABLE');
      expectRetryAfter(refusedAddress);
      const refusedProof = await prove(body);
      expectError(refusedProof, 503, 'SALT_UNAVAILABLE');
      expectRetryAfter(refusedProof);
      // 500 INTERNAL_ERROR (all): a server error is rendered in the standard body, never a crash.
      const internal = await e2e.call('GET', '/v1/zklogin/audiences');
      expectError(internal, 500, 'INTERNAL_ERROR');
      expect(JSON.stringify(internal.body)).not.toContain('zklogin_audiences');
    } finally {
      await e2e.gateway.db.database.db.schema.alterTable('zklogin_audiences_away').renameTo('zklogin_audiences').execute();
    }
    expect((await address({ jwt })).status).toBe(200);
  });
});
