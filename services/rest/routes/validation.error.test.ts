import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildRestTestApp } from '../../../test/support/rest-app.js';
import type { Upstream } from '../../upstream/index.js';

/** An upstream that must never be reached: every bad input is answered before any call. */
function untouchableUpstream(): Upstream & { calls: number } {
  const fail = () => { stub.calls += 1; throw new Error('upstream called'); };
  const stub = {
    calls: 0, network: 'testnet' as const, endpoints: { grpcUrl: '', graphqlUrl: '' },
    grpc: new Proxy({}, { get: fail }) as Upstream['grpc'],
    call: async () => fail(), graphql: async () => fail(), health: async () => fail(), close: async () => undefined,
  };
  return stub as unknown as Upstream & { calls: number };
}

const A = `0x${'a'.repeat(64)}`;
const D = 'DJjb3zMU7AqzjqW4Ds3B1pcJ4RqFSu4vW4EyTGn3eEWR';

describe('REST input validation (400 with a code, before any upstream call)', () => {
  let app: FastifyInstance;
  const upstream = untouchableUpstream();
  beforeAll(async () => { ({ app } = await buildRestTestApp(new Map([['testnet', upstream]]))); });
  afterAll(async () => { await app.close(); });

  const cases: [string, string, string, unknown?][] = [
    ['GET', '/testnet/v1/accounts/0x123', 'INVALID_ADDRESS'],
    ['GET', `/testnet/v1/accounts/${A}z`, 'INVALID_ADDRESS'],
    ['GET', `/testnet/v1/accounts/0x${'g'.repeat(64)}/balance`, 'INVALID_ADDRESS'],
    ['GET', `/testnet/v1/accounts/${A}/objects?limit=0`, 'VALIDATION_FAILED'],
    ['GET', `/testnet/v1/accounts/${A}/objects?limit=101`, 'VALIDATION_FAILED'],
    ['GET', `/testnet/v1/accounts/${A}/objects?limit=abc`, 'VALIDATION_FAILED'],
    ['GET', `/testnet/v1/accounts/${A}/objects?cursor=forged.cursor`, 'INVALID_CURSOR'],
    ['GET', `/testnet/v1/accounts/${A}/transactions?format=json`, 'VALIDATION_FAILED'],
    ['GET', `/testnet/v1/accounts/${A}/transactions?includeReceived=yes`, 'VALIDATION_FAILED'],
    ['GET', `/testnet/v1/accounts/${A}/transactions?cursor=abc`, 'INVALID_CURSOR'],
    ['GET', '/testnet/v1/transactions/latest?limit=51', 'VALIDATION_FAILED'],
    ['GET', '/testnet/v1/transactions?status=success', 'VALIDATION_FAILED'],
    ['GET', '/testnet/v1/transactions?orderBy=up', 'VALIDATION_FAILED'],
    ['GET', '/testnet/v1/transactions?sender=0x1', 'INVALID_ADDRESS'],
    ['GET', '/testnet/v1/transactions?includeEvents=1', 'VALIDATION_FAILED'],
    ['POST', '/testnet/v1/transactions/batch', 'INVALID_DIGEST', { digests: [] }],
    ['POST', '/testnet/v1/transactions/batch', 'INVALID_DIGEST', { digests: Array(101).fill(D) }],
    ['POST', '/testnet/v1/transactions/batch', 'INVALID_DIGEST', { digests: ['0OIl'.repeat(10)] }],
    ['POST', '/testnet/v1/transactions/batch', 'VALIDATION_FAILED', { hashes: [D] }],
    ['GET', '/testnet/v1/transactions/0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl/raw', 'INVALID_DIGEST'],
    ['GET', '/testnet/v1/objects/0x12', 'INVALID_OBJECT_ID'],
    ['POST', '/testnet/v1/objects/batch', 'INVALID_OBJECT_ID', { ids: ['0x1'] }],
    ['GET', '/testnet/v1/coins/notatype/metadata', 'INVALID_COIN_TYPE'],
    ['GET', '/testnet/v1/checkpoints/-1', 'INVALID_CHECKPOINT'],
    ['GET', `/testnet/v1/names/${'a'.repeat(70)}`, 'INVALID_NAME'],
    ['GET', '/testnet/v1/names/reverse/0x1', 'INVALID_ADDRESS'],
    ['POST', '/testnet/v1/names/batch', 'INVALID_NAME', { names: [] }],
    ['POST', '/testnet/v1/names/batch', 'INVALID_NAME', { names: ['a'.repeat(64)] }],
    ['POST', '/testnet/v1/names/batch', 'INVALID_NAME', { names: Array(101).fill('abc') }],
  ];

  it.each(cases)('%s %s → 400 %s', async (method, url, code, payload) => {
    const response = await app.inject({ method: method as 'GET' | 'POST', url, ...(payload ? { payload: payload as object } : {}) });
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toMatchObject({ code, error: expect.any(String) });
    expect(upstream.calls).toBe(0);
  });
});
