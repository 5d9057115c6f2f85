import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDENTITY_HEADERS } from '../../services/identity/index.js';
import { startEnvoyStack, type Caller, type EnvoyStack } from '../support/envoy-stack.js';

const OBJECT = `/mainnet/v1/objects/0x${'5'.repeat(64)}`;

/**
 * Identity headers are trusted only when signed by authz, for that request, recently, and only by
 * a gateway configured to trust them; anything else is stripped and the key is checked in-process.
 */
describe('identity headers: forged, stale or replayed ones are not trusted', () => {
  let s: EnvoyStack;
  let caller: Caller;
  /** A token authz issued for GET OBJECT. */
  let token: string;
  beforeAll(async () => {
    s = await startEnvoyStack();
    caller = await s.newCaller();
    const allowed = await s.check({ url: OBJECT, headers: { 'x-api-key': caller.key } });
    token = allowed.ok_response!.headers.find((option) => option.header.key === IDENTITY_HEADERS.token)!.header.value;
  });
  afterAll(async () => s?.close());

  it('the trusting gateway answers a valid token without any key (the path Envoy takes)', async () => {
    const answer = await s.gatewayAnswer({ url: OBJECT, headers: { [IDENTITY_HEADERS.token]: token } });
    expect(answer.status).toBe(200);
    expect(answer.headers['x-ratelimit-limit']).toBe('50');
  });

  it('a forged token: ignored, so no key is 401 API_KEY_MISSING and a valid key still works', async () => {
    const [payload] = token.split('.');
    for (const forged of [`${payload}.${'A'.repeat(43)}`, 'not-a-token', `${token}x`]) {
      const answer = await s.gatewayAnswer({ url: OBJECT, headers: { [IDENTITY_HEADERS.token]: forged } });
      expect(answer.status).toBe(401);
      expect(answer.body).toMatchObject({ error: 'Missing API key' });
    }
    const withKey = await s.gatewayAnswer({ url: OBJECT, headers: { [IDENTITY_HEADERS.token]: 'not-a-token', 'x-api-key': caller.key } });
    expect(withKey.status).toBe(200);
  });

  it('a token replayed on another route or method: ignored', async () => {
    const other = await s.gatewayAnswer({ url: '/mainnet/v1/keys', headers: { [IDENTITY_HEADERS.token]: token } });
    expect(other.status).toBe(401);
    const head = await s.gatewayAnswer({ method: 'HEAD', url: OBJECT, headers: { [IDENTITY_HEADERS.token]: token } });
    expect(head.status).toBe(401);
  });

  it('a token signed for another network, for this very method and path: ignored', async () => {
    const claims = s.identity.verify(token)!;
    const { issuedAt: _issuedAt, ...rest } = claims;
    const forTestnet = s.identity.sign({ ...rest, method: 'GET', path: OBJECT, network: 'testnet' });
    expect(s.identity.verify(forTestnet, { method: 'GET', path: OBJECT })).toMatchObject({ network: 'testnet' });
    const answer = await s.gatewayAnswer({ url: OBJECT, headers: { [IDENTITY_HEADERS.token]: forTestnet } });
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ error: 'Missing API key' });
  });

  it('the gateway without Envoy (trust off) never trusts a token, even a valid one', async () => {
    const answer = await s.inProcessAnswer({ url: OBJECT, headers: { [IDENTITY_HEADERS.token]: token } });
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ error: 'Missing API key' });
  });

  it('a stale token (older than SUIGW_IDENTITY_HEADER_MAX_AGE_MS): ignored', async () => {
    s.clock.advance(s.config.identityHeaders.maxAgeMs + 1);
    const answer = await s.gatewayAnswer({ url: OBJECT, headers: { [IDENTITY_HEADERS.token]: token } });
    expect(answer.status).toBe(401);
  });
});
