import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { clientAddressOf, proxyTrust, type TrustProxy } from '../core/index.js';
import { generateKeyValue } from '../identity/index.js';
import { createTestApp, type TestApp } from '../../test/support/test-app.js';

/**
 * The HTTP gateway's client IP (fastify's `request.ip`, every per-IP limit's key) under
 * SUIGW_TRUST_PROXY, shown by the budget of key lookups that found no key (3 a minute here):
 * with N hops the visitor is the X-Forwarded-For entry N from the right, entries a client wrote
 * further left are ignored, and it is what the gRPC proxy counts (`clientAddressOf`, one rule).
 */
const ENVOY = '10.1.2.3';

describe('the HTTP gateway: the client IP per SUIGW_TRUST_PROXY', () => {
  let t: TestApp | undefined;
  afterEach(async () => { await t?.close(); t = undefined; });

  /** The status of a keyed request with a random unknown key arriving from Envoy's socket with `forwardedFor`. */
  const call = async (forwardedFor: string) => (await t!.app.inject({
    method: 'GET', url: '/mainnet/v1/keys', remoteAddress: ENVOY, headers: { 'x-api-key': generateKeyValue(), 'x-forwarded-for': forwardedFor },
  })).statusCode;

  it('1 (Envoy in front): one visitor spends its own budget whatever it writes leftmost; other visitors keep theirs', async () => {
    t = await createTestApp({ env: { SUIGW_TRUST_PROXY: '1', SUIGW_UNKNOWN_KEY_LOOKUPS_PER_MINUTE: '3' } });
    const flood = [];
    for (const forged of ['198.51.100.1', '198.51.100.2', '198.51.100.3', '198.51.100.4']) flood.push(await call(`${forged}, 203.0.113.1`));
    expect(flood).toEqual([401, 401, 401, 429]);
    expect([await call('203.0.113.2'), await call('203.0.113.1, 203.0.113.3')]).toEqual([401, 401]);
  });

  it('2 (a load balancer in front of Envoy): the entry the load balancer appended', async () => {
    t = await createTestApp({ env: { SUIGW_TRUST_PROXY: '2', SUIGW_UNKNOWN_KEY_LOOKUPS_PER_MINUTE: '3' } });
    const flood = [];
    for (const forged of ['198.51.100.1', '198.51.100.2', '198.51.100.3', '198.51.100.4']) flood.push(await call(`${forged}, 203.0.113.1, 10.9.9.9`));
    expect(flood).toEqual([401, 401, 401, 429]);
    expect(await call('203.0.113.2, 10.9.9.9')).toBe(401);
  });

  it('unset: the socket peer, X-Forwarded-For ignored', async () => {
    t = await createTestApp({ env: { SUIGW_UNKNOWN_KEY_LOOKUPS_PER_MINUTE: '3' } });
    expect([await call('203.0.113.1'), await call('203.0.113.2'), await call('203.0.113.3'), await call('203.0.113.4')]).toEqual([401, 401, 401, 429]);
  });
});

describe('clientAddressOf: the gRPC proxy reads the client IP as fastify does with proxyTrust', () => {
  it.each<[TrustProxy, string | string[] | undefined, string | undefined]>([
    [0, '203.0.113.1', ENVOY],
    [1, undefined, ENVOY],
    [1, '203.0.113.1', '203.0.113.1'],
    [1, '198.51.100.1, 203.0.113.1', '203.0.113.1'],
    [1, ['198.51.100.1', '203.0.113.1'], '203.0.113.1'],
    [2, '198.51.100.1,203.0.113.1 , 10.9.9.9', '203.0.113.1'],
    [3, '203.0.113.1, 10.9.9.9', '203.0.113.1'],
    [1, ' , ', ENVOY],
    [true, '198.51.100.1, 203.0.113.1', '198.51.100.1'],
  ])('trust %j, X-Forwarded-For %j: %s', async (trust, forwardedFor, expected) => {
    expect(clientAddressOf(ENVOY, forwardedFor, trust)).toBe(expected);
    // fastify given what services/http/app.ts gives it reads the same address.
    const app = Fastify({ trustProxy: trust === 0 ? false : proxyTrust(trust) });
    app.get('/', (request) => ({ ip: request.ip }));
    const headers = forwardedFor === undefined ? {} : { 'x-forwarded-for': [forwardedFor].flat().join(', ') };
    expect((await app.inject({ method: 'GET', url: '/', remoteAddress: ENVOY, headers })).json()).toEqual({ ip: expected });
    await app.close();
  });
});
