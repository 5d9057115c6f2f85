import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/support/test-app.js';
import { createKey } from '../../identity/index.js';
import type { Upstream } from '../../upstream/index.js';

/** An upstream that must never be reached: every bad input is answered before any call. */
function untouchableUpstream(): Upstream & { calls: number } {
  const fail = () => { stub.calls += 1; throw new Error('upstream called'); };
  const stub = {
    calls: 0, network: 'mainnet' as const, endpoints: { grpcUrl: '', graphqlUrl: '' },
    grpc: new Proxy({}, { get: fail }) as Upstream['grpc'],
    grpcWithDeadline: () => new Proxy({}, { get: fail }) as Upstream['grpc'],
    call: async () => fail(), graphql: async () => fail(), close: async () => undefined,
    // Background health probes are not the request's calls.
    health: async () => ({ network: 'mainnet', status: 'down', grpc: { status: 'down', breaker: 'closed', latencyMs: 0 }, graphql: { status: 'down', breaker: 'closed', latencyMs: 0 } }),
    breakers: () => ({}), budget: () => ({ deadlineAt: Date.now() + 1_000, signal: new AbortController().signal }), forRequest: () => stub,
  };
  return stub as unknown as Upstream & { calls: number };
}

const A = `0x${'a'.repeat(64)}`;
const D = 'DJjb3zMU7AqzjqW4Ds3B1pcJ4RqFSu4vW4EyTGn3eEWR';

describe('REST input validation (400 with a code, before any upstream call)', () => {
  let gateway: TestApp;
  const upstream = untouchableUpstream();
  beforeAll(async () => { gateway = await createTestApp({ extra: { upstreams: new Map([['mainnet', upstream]]) } }); });
  afterAll(async () => { await gateway.close(); });

  const cases: [string, string, string, unknown?][] = [
    ['GET', '/mainnet/v1/accounts/0x123', 'INVALID_ADDRESS'],
    ['GET', `/mainnet/v1/accounts/${A}z`, 'INVALID_ADDRESS'],
    ['GET', `/mainnet/v1/accounts/0x${'g'.repeat(64)}/balance`, 'INVALID_ADDRESS'],
    ['GET', `/mainnet/v1/accounts/${A}/objects?limit=0`, 'VALIDATION_FAILED'],
    ['GET', `/mainnet/v1/accounts/${A}/objects?limit=101`, 'VALIDATION_FAILED'],
    ['GET', `/mainnet/v1/accounts/${A}/objects?limit=abc`, 'VALIDATION_FAILED'],
    ['GET', `/mainnet/v1/accounts/${A}/objects?cursor=forged.cursor`, 'INVALID_CURSOR'],
    // Integers are decimal digits only.
    ['GET', `/mainnet/v1/accounts/${A}/objects?limit=0x10`, 'VALIDATION_FAILED'],
    ['GET', `/mainnet/v1/accounts/${A}/objects?limit=1e1`, 'VALIDATION_FAILED'],
    ['GET', `/mainnet/v1/accounts/${A}/objects?limit=%2B5`, 'VALIDATION_FAILED'],
    ['GET', `/mainnet/v1/accounts/${A}/objects?limit=5.0`, 'VALIDATION_FAILED'],
    ['GET', `/mainnet/v1/accounts/${A}/objects?limit=%205`, 'VALIDATION_FAILED'],
    ['GET', '/mainnet/v1/transactions/latest?limit=0x10', 'VALIDATION_FAILED'],
    ['GET', '/mainnet/v1/transactions?limit=1e1', 'VALIDATION_FAILED'],
    ['GET', `/mainnet/v1/accounts/${A}/transactions?format=json`, 'VALIDATION_FAILED'],
    ['GET', `/mainnet/v1/accounts/${A}/transactions?includeReceived=yes`, 'VALIDATION_FAILED'],
    ['GET', `/mainnet/v1/accounts/${A}/transactions?cursor=abc`, 'INVALID_CURSOR'],
    ['GET', '/mainnet/v1/transactions/latest?limit=51', 'VALIDATION_FAILED'],
    ['GET', '/mainnet/v1/transactions?status=success', 'VALIDATION_FAILED'],
    ['GET', '/mainnet/v1/transactions?orderBy=up', 'VALIDATION_FAILED'],
    ['GET', '/mainnet/v1/transactions?sender=0x1', 'INVALID_ADDRESS'],
    ['GET', '/mainnet/v1/transactions?includeEvents=1', 'VALIDATION_FAILED'],
    ['POST', '/mainnet/v1/transactions/batch', 'INVALID_DIGEST', { digests: [] }],
    ['POST', '/mainnet/v1/transactions/batch', 'INVALID_DIGEST', { digests: Array(101).fill(D) }],
    ['POST', '/mainnet/v1/transactions/batch', 'INVALID_DIGEST', { digests: ['0OIl'.repeat(10)] }],
    ['POST', '/mainnet/v1/transactions/batch', 'VALIDATION_FAILED', { hashes: [D] }],
    ['GET', '/mainnet/v1/transactions/0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl/raw', 'INVALID_DIGEST'],
    ['GET', '/mainnet/v1/objects/0x12', 'INVALID_OBJECT_ID'],
    ['POST', '/mainnet/v1/objects/batch', 'INVALID_OBJECT_ID', { ids: ['0x1'] }],
    ['GET', '/mainnet/v1/coins/notatype/metadata', 'INVALID_COIN_TYPE'],
    ['GET', '/mainnet/v1/checkpoints/-1', 'INVALID_CHECKPOINT'],
    // u64 range: one past the largest sequence number, and the largest 20-digit number.
    ['GET', '/mainnet/v1/checkpoints/18446744073709551616', 'INVALID_CHECKPOINT'],
    ['GET', '/mainnet/v1/checkpoints/99999999999999999999', 'INVALID_CHECKPOINT'],
    // 21 to 31 digits: neither a u64 nor a digest.
    ['GET', `/mainnet/v1/checkpoints/${'9'.repeat(25)}`, 'INVALID_CHECKPOINT'],
    // Base58 of the right length that does not decode to 32 bytes.
    ['GET', `/mainnet/v1/checkpoints/${'z'.repeat(44)}`, 'INVALID_CHECKPOINT'],
    ['GET', `/mainnet/v1/transactions/${'2'.repeat(32)}`, 'INVALID_DIGEST'],
    ['GET', `/mainnet/v1/transactions/${'z'.repeat(44)}/raw`, 'INVALID_DIGEST'],
    ['POST', '/mainnet/v1/transactions/batch', 'INVALID_DIGEST', { digests: [D, 'z'.repeat(44)] }],
    ['GET', '/mainnet/v1/coins/0x2%3A%3Acoin%3A%3ACoin%3Cnot%20a%20type%3E/metadata', 'INVALID_COIN_TYPE'],
    ['GET', '/mainnet/v1/names/a..b', 'INVALID_NAME'],
    ['GET', '/mainnet/v1/names/-abc', 'INVALID_NAME'],
    ['GET', '/mainnet/v1/names/abc-', 'INVALID_NAME'],
    ['GET', '/mainnet/v1/names/abc./availability', 'INVALID_NAME'],
    ['POST', '/mainnet/v1/names/batch', 'INVALID_NAME', { names: ['ok', 'no_underscore'] }],
    ['GET', `/mainnet/v1/names/${'a'.repeat(70)}`, 'INVALID_NAME'],
    ['GET', '/mainnet/v1/names/reverse/0x1', 'INVALID_ADDRESS'],
    ['POST', '/mainnet/v1/names/batch', 'INVALID_NAME', { names: [] }],
    ['POST', '/mainnet/v1/names/batch', 'INVALID_NAME', { names: ['a'.repeat(64)] }],
    // Spec: each 1 to 63 characters, given without the suffix (labels of 63 are not the limit here).
    ['POST', '/mainnet/v1/names/batch', 'INVALID_NAME', { names: [`${'a'.repeat(60)}.bbbbbbbbbb`] }],
    ['POST', '/mainnet/v1/names/batch', 'INVALID_NAME', { names: ['foo.sui'] }],
    ['POST', '/mainnet/v1/names/batch', 'INVALID_NAME', { names: Array(101).fill('abc') }],
  ];

  it.each(cases)('%s %s → 400 %s', async (method, url, code, payload) => {
    // Time moves between requests as for a client: the plan's rate is not what is tested.
    gateway.clock.advance(100);
    const response = await gateway.app.inject({ method: method as 'GET' | 'POST', url, headers: { 'x-api-key': gateway.adminKey }, ...(payload ? { payload: payload as object } : {}) });
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toMatchObject({ code, error: expect.any(String) });
    expect(upstream.calls).toBe(0);
  });
});

describe('REST authentication (before validation and before any upstream call)', () => {
  let gateway: TestApp;
  const upstream = untouchableUpstream();
  beforeAll(async () => { gateway = await createTestApp({ extra: { upstreams: new Map([['mainnet', upstream]]) } }); });
  afterAll(async () => { await gateway.close(); });

  it('no key → 401; a key without the data scope → 403 INSUFFICIENT_SCOPE; a testnet key on mainnet → 403 NETWORK_MISMATCH', async () => {
    const url = '/mainnet/v1/accounts/0x123';
    expect((await gateway.app.inject({ url })).statusCode).toBe(401);
    const manageOnly = await createKey(gateway.db.database, gateway.clock, { kind: 'operator' }, { organizationId: gateway.organizationId, projectId: gateway.projects.mainnet, name: 'm', scopes: ['manage'], expiresInDays: 30 });
    const denied = await gateway.app.inject({ url, headers: { 'x-api-key': manageOnly.apiKey } });
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toMatchObject({ code: 'INSUFFICIENT_SCOPE' });
    const testnetKey = await createKey(gateway.db.database, gateway.clock, { kind: 'operator' }, { organizationId: gateway.organizationId, projectId: gateway.projects.testnet, name: 't', scopes: ['data'], expiresInDays: 30 });
    expect((await gateway.app.inject({ url, headers: { 'x-api-key': testnetKey.apiKey } })).json()).toMatchObject({ code: 'NETWORK_MISMATCH' });
    // the same key on its own network, where no upstream is configured
    const none = await gateway.app.inject({ url: `/testnet/v1/objects/0x${'5'.repeat(64)}`, headers: { 'x-api-key': testnetKey.apiKey } });
    expect(none.statusCode).toBe(404);
    expect(none.json()).toMatchObject({ code: 'NETWORK_NOT_CONFIGURED' });
    expect(upstream.calls).toBe(0);
  });
});
