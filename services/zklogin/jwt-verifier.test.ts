import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/index.js';
import { GOOGLE, startTestIssuers, type TestIssuers } from '../../test/support/zklogin-issuers.js';
import { issuerJwksUrls, JwtVerifier } from './index.js';

let issuers: TestIssuers;
const clock = new ManualClock();
const exp = () => Math.floor(clock.now() / 1000) + 600;

beforeAll(async () => { issuers = await startTestIssuers(); });
afterAll(async () => { await issuers.stop(); });

function verifier(refreshCooldownMs: number): JwtVerifier {
  return new JwtVerifier({ jwksUrls: issuerJwksUrls(JSON.parse(issuers.jwksEnv)), clock, refreshCooldownMs });
}

describe('JwtVerifier: issuer keys', () => {
  it('fetches an issuer\'s JWKS once and verifies later tokens from the cache', async () => {
    const subject = verifier(30_000);
    const before = issuers.fetches(GOOGLE);
    for (let i = 0; i < 5; i += 1) {
      await expect(subject.verify(await issuers.sign({ aud: 'a', sub: `s${i}`, exp: exp() }))).resolves.toMatchObject({ iss: GOOGLE, aud: 'a', sub: `s${i}` });
    }
    expect(issuers.fetches(GOOGLE) - before).toBe(1);
  });

  it('refetches on an unknown kid (a rotated key), and accepts the new key', async () => {
    const subject = verifier(0);
    await subject.verify(await issuers.sign({ aud: 'a', sub: 's', exp: exp() }));
    const before = issuers.fetches(GOOGLE);
    const kid = await issuers.rotate(GOOGLE);
    await expect(subject.verify(await issuers.sign({ aud: 'a', sub: 's', exp: exp() }, { kid }))).resolves.toMatchObject({ sub: 's' });
    expect(issuers.fetches(GOOGLE) - before).toBe(1);
  });

  it('bounds the refreshes: within the cooldown, unknown kids are refused without fetching again', async () => {
    const subject = verifier(60_000);
    await subject.verify(await issuers.sign({ aud: 'a', sub: 's', exp: exp() }));
    const before = issuers.fetches(GOOGLE);
    for (let i = 0; i < 20; i += 1) {
      const forged = await issuers.sign({ aud: 'a', sub: 's', exp: exp() }, { foreign: true, header: { kid: `made-up-${i}` } });
      await expect(subject.verify(forged)).rejects.toMatchObject({ code: 'INVALID_JWT' });
    }
    expect(issuers.fetches(GOOGLE) - before).toBe(0);
  });

  it('checks expiry on the service clock, not the wall clock', async () => {
    const subject = verifier(30_000);
    const jwt = await issuers.sign({ aud: 'a', sub: 's', exp: exp() });
    await expect(subject.verify(jwt)).resolves.toBeDefined();
    clock.advance(601_000 + 60_000);
    await expect(subject.verify(jwt)).rejects.toMatchObject({ code: 'INVALID_JWT', message: 'The token has expired.' });
  });

  it('accepts an iat up to 60 s ahead of the service clock (issuer clock skew) and refuses one 61 s ahead', async () => {
    const subject = verifier(30_000);
    const now = Math.floor(clock.now() / 1000);
    await expect(subject.verify(await issuers.sign({ aud: 'a', sub: 's', iat: now + 60, exp: exp() }))).resolves.toMatchObject({ sub: 's' });
    await expect(subject.verify(await issuers.sign({ aud: 'a', sub: 's', iat: now + 61, exp: exp() }))).rejects.toMatchObject({
      code: 'INVALID_JWT',
      message: 'The token is issued in the future (iat more than 60 s ahead of the service clock).',
    });
    // Without iat the token is accepted (the issuers always send it; the spec does not require it).
    await expect(subject.verify(await issuers.sign({ aud: 'a', sub: 's', exp: exp() }))).resolves.toMatchObject({ sub: 's' });
  });
});
