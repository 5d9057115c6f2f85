import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/support/test-app.js';

const PER_MINUTE = 10;

/**
 * The anonymous wallet routes create an organization per fresh keypair: before, a script could
 * create them without bound. Now challenge and register share one allowance per client address
 * (10 a minute, 10 at once; IPv6 per /64), past it 429 RATE_LIMIT_EXCEEDED with Retry-After.
 */
describe('wallet sign-in: one allowance per client address', () => {
  let t: TestApp;
  beforeAll(async () => { t = await createTestApp(); });
  afterAll(async () => t.close());

  const challenge = (address: string, from: string) =>
    t.app.inject({ method: 'GET', url: `/mainnet/v1/wallet/challenge?address=${address}`, remoteAddress: from });

  /** A fresh keypair's whole sign-in from `from`: challenge, then register (2 calls). */
  async function signIn(from: string) {
    const wallet = Ed25519Keypair.generate();
    const address = wallet.toSuiAddress();
    const issued = await challenge(address, from);
    expect(issued.statusCode).toBe(200);
    const { challengeId, message } = (issued.json() as { data: { challengeId: string; message: string } }).data;
    const signature = (await wallet.signPersonalMessage(new TextEncoder().encode(message))).signature;
    return t.app.inject({ method: 'POST', url: '/mainnet/v1/wallet/register', payload: { address, challengeId, signature }, remoteAddress: from });
  }

  const organizations = async () => (await t.db.database.db.selectFrom('organizations').select('id').execute()).length;

  it('10 calls a minute from one address; the 11th is 429 RATE_LIMIT_EXCEEDED with Retry-After, and creates nothing', async () => {
    const from = '203.0.113.10';
    const before = await organizations();
    for (let i = 0; i < PER_MINUTE / 2; i += 1) expect((await signIn(from)).statusCode).toBe(402);
    expect(await organizations()).toBe(before + PER_MINUTE / 2);

    const refused = await challenge(Ed25519Keypair.generate().toSuiAddress(), from);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({ error: 'Rate limit exceeded', code: 'RATE_LIMIT_EXCEEDED', requestId: refused.headers['x-request-id'] });
    // One call every six seconds comes back.
    expect(refused.headers['retry-after']).toBe('6');
    expect(refused.headers['x-ratelimit-limit']).toBeUndefined();

    // A registration with a challenge got elsewhere is refused too: the allowance is the caller's address.
    const wallet = Ed25519Keypair.generate();
    const elsewhere = await challenge(wallet.toSuiAddress(), '203.0.113.11');
    const { challengeId, message } = (elsewhere.json() as { data: { challengeId: string; message: string } }).data;
    const signature = (await wallet.signPersonalMessage(new TextEncoder().encode(message))).signature;
    const register = await t.app.inject({
      method: 'POST', url: '/mainnet/v1/wallet/register', payload: { address: wallet.toSuiAddress(), challengeId, signature }, remoteAddress: from,
    });
    expect([register.statusCode, register.json().code, register.headers['retry-after']]).toEqual([429, 'RATE_LIMIT_EXCEEDED', '6']);
    expect(await organizations()).toBe(before + PER_MINUTE / 2);

    // Six seconds later one call is allowed again, and only one.
    t.clock.advance(6_000);
    expect((await challenge(wallet.toSuiAddress(), from)).statusCode).toBe(200);
    expect((await challenge(wallet.toSuiAddress(), from)).statusCode).toBe(429);
  });

  it('another address has its own allowance; IPv6 addresses share one per /64', async () => {
    const address = Ed25519Keypair.generate().toSuiAddress();
    for (let i = 0; i < PER_MINUTE; i += 1) expect((await challenge(address, `2001:db8:1:2::${i + 1}`)).statusCode).toBe(200);
    expect((await challenge(address, '2001:db8:1:2::ffff')).statusCode).toBe(429);
    expect((await challenge(address, '2001:db8:1:3::1')).statusCode).toBe(200);
    expect((await challenge(address, '198.51.100.7')).statusCode).toBe(200);
  });
});
