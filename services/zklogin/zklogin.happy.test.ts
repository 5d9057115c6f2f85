import { randomBytes } from 'node:crypto';
import { SuiGrpcClient } from '@mysten/sui/grpc';
import { Transaction } from '@mysten/sui/transactions';
import { fromBase64 } from '@mysten/sui/utils';
import { publicKeyFromSuiBytes } from '@mysten/sui/verify';
import { genAddressSeed, generateNonce, getZkLoginSignature, jwtToAddress } from '@mysten/sui/zklogin';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZKLOGIN_ISSUERS } from '../core/index.js';
import { createKeyVia } from '../../test/support/management-calls.js';
import { CLIENT_ID, startZkLoginE2E, type ZkLoginE2E } from '../../test/support/zklogin-e2e.js';
import { LocalProver } from './index.js';

let e2e: ZkLoginE2E;

beforeAll(async () => {
  e2e = await startZkLoginE2E({ prover: new LocalProver() });
});
afterAll(async () => { await e2e.stop(); });

describe('POST /v1/zklogin/address', () => {
  it('returns the salt, address seed and current-scheme address of the SDK for the same JWT and salt', async () => {
    const jwt = await e2e.jwt({ sub: 'alice' });
    const response = await e2e.call('POST', '/v1/zklogin/address', { body: { jwt } });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const { salt, addressSeed, address, seedVersion } = response.body.data;
    expect(seedVersion).toBe(1);
    expect(salt).toMatch(/^\d+$/);
    expect(BigInt(salt) < 2n ** 128n).toBe(true);
    expect(address).toBe(jwtToAddress(jwt, salt, false));
    expect(addressSeed).toBe(genAddressSeed(BigInt(salt), 'sub', 'alice', CLIENT_ID).toString());
    expect(response.headers['x-svc-credit-remaining']).toBeDefined();
  });

  it('property: for random subjects, issuers and audiences the address is jwtToAddress(jwt, salt) and the salt is stable', async () => {
    for (let i = 0; i < 24; i += 1) {
      const sub = randomBytes(1 + (i % 20)).toString('base64url');
      const aud = i % 3 === 0 ? CLIENT_ID : `client-${randomBytes(4).toString('hex')}`;
      if (aud !== CLIENT_ID) expect((await e2e.call('POST', '/v1/zklogin/audiences', { body: { audience: aud } })).status).toBe(201);
      const issuer = ZKLOGIN_ISSUERS[i % ZKLOGIN_ISSUERS.length]!;
      const jwt = await e2e.jwt({ sub, aud }, { issuer });
      const first = await e2e.call('POST', '/v1/zklogin/address', { body: { jwt } });
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      expect(first.body.data.address).toBe(jwtToAddress(jwt, first.body.data.salt, false));
      // A new token of the same user (another iat, exp) gives the same salt and address.
      e2e.gateway.clock.advance(1_000);
      const again = await e2e.call('POST', '/v1/zklogin/address', { body: { jwt: await e2e.jwt({ sub, aud }, { issuer }) } });
      expect(again.body.data).toEqual(first.body.data);
    }
  });

  it('is the same on every network for one organization, and differs between organizations', async () => {
    const jwt = await e2e.jwt({ sub: 'bob' });
    const mainnet = await e2e.call('POST', '/v1/zklogin/address', { body: { jwt } });
    const testnetKey = (await createKeyVia(e2e.gateway, { projectId: e2e.gateway.projects.testnet, scopes: ['zkLogin'] })).apiKey;
    const testnet = await e2e.call('POST', '/v1/zklogin/address', { body: { jwt }, key: testnetKey, network: 'testnet' });
    expect(testnet.status).toBe(200);
    expect(testnet.body.data).toEqual(mainnet.body.data);

    const other = await e2e.newCaller();
    const elsewhere = await e2e.call('POST', '/v1/zklogin/address', { body: { jwt }, key: other.key });
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body.data.salt).not.toBe(mainnet.body.data.salt);
    expect(elsewhere.body.data.address).not.toBe(mainnet.body.data.address);
    expect(elsewhere.body.data.address).toBe(jwtToAddress(jwt, elsewhere.body.data.salt, false));
  });
});

describe('POST /v1/zklogin/nonce', () => {
  it('property: the nonce is generateNonce(key, maxEpoch, jwtRandomness) of the SDK, maxEpoch = current + epochs (default 2)', async () => {
    for (const epochs of [undefined, 0, 1, 7, 30]) {
      const { keypair, extendedEphemeralPublicKey } = e2e.session(0);
      const response = await e2e.call('POST', '/v1/zklogin/nonce', { body: { extendedEphemeralPublicKey, ...(epochs === undefined ? {} : { epochs }) } });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      const { nonce, jwtRandomness, maxEpoch, expiresAt } = response.body.data;
      expect(maxEpoch).toBe(e2e.currentEpoch() + (epochs ?? 2));
      expect(nonce).toBe(generateNonce(keypair.getPublicKey(), maxEpoch, jwtRandomness));
      expect(BigInt(jwtRandomness) < 2n ** 128n).toBe(true);
      expect(expiresAt).toBeGreaterThan(Number(e2e.simnet.ledger.currentEpoch().startTimestampMs));
    }
  });

  it('returns new randomness on each call, for every key scheme', async () => {
    const { extendedEphemeralPublicKey } = e2e.session(0);
    const a = await e2e.call('POST', '/v1/zklogin/nonce', { body: { extendedEphemeralPublicKey } });
    const b = await e2e.call('POST', '/v1/zklogin/nonce', { body: { extendedEphemeralPublicKey } });
    expect(a.body.data.jwtRandomness).not.toBe(b.body.data.jwtRandomness);
    expect(a.body.data.nonce).not.toBe(b.body.data.nonce);
    const { Secp256k1Keypair } = await import('@mysten/sui/keypairs/secp256k1');
    const { Secp256r1Keypair } = await import('@mysten/sui/keypairs/secp256r1');
    for (const keypair of [new Secp256k1Keypair(), new Secp256r1Keypair()]) {
      const extended = keypair.getPublicKey().toSuiPublicKey();
      const response = await e2e.call('POST', '/v1/zklogin/nonce', { body: { extendedEphemeralPublicKey: extended } });
      expect(response.status).toBe(200);
      expect(response.body.data.nonce).toBe(generateNonce(publicKeyFromSuiBytes(fromBase64(extended)), response.body.data.maxEpoch, response.body.data.jwtRandomness));
    }
  });
});

describe('POST /v1/zklogin/prove', () => {
  it('returns a proof in the prover format whose signature simnet accepts for the /address address', async () => {
    const nonce = await e2e.call('POST', '/v1/zklogin/nonce', { body: { extendedEphemeralPublicKey: e2e.session(0).extendedEphemeralPublicKey } });
    expect(nonce.status).toBe(200);
    // The app's own flow: a nonce from the service for its ephemeral key, then the OAuth login.
    const session = e2e.session(nonce.body.data.maxEpoch, nonce.body.data.jwtRandomness);
    const jwt = await e2e.jwt({ sub: 'carol', nonce: session.nonce });
    const address = await e2e.call('POST', '/v1/zklogin/address', { body: { jwt } });
    const proof = await e2e.call('POST', '/v1/zklogin/prove', {
      body: { jwt, extendedEphemeralPublicKey: session.extendedEphemeralPublicKey, maxEpoch: nonce.body.data.maxEpoch, jwtRandomness: session.randomness },
    });
    expect(proof.status, JSON.stringify(proof.body)).toBe(200);
    const data = proof.body.data;
    expect(data.maxEpoch).toBe(nonce.body.data.maxEpoch);
    expect(data.addressSeed).toBe(address.body.data.addressSeed);
    expect(data.headerBase64).toBe(jwt.split('.')[0]);
    expect(data.proofPoints.a).toHaveLength(3);
    expect(data.proofPoints.b.map((pair: string[]) => pair.length)).toEqual([2, 2, 2]);
    expect(data.proofPoints.c).toHaveLength(3);

    // The proof's issBase64Details and addressSeed make a zkLogin signature for the /address address.
    const client = new SuiGrpcClient({ network: 'localnet', baseUrl: e2e.simnet.grpcUrl });
    const alice = e2e.simnet.accounts[0]!;
    const fund = new Transaction();
    fund.setSender(alice.address);
    fund.transferObjects([fund.splitCoins(fund.gas, [2_000_000_000])[0]!], address.body.data.address);
    await client.signAndExecuteTransaction({ transaction: fund, signer: alice.keypair });
    e2e.simnet.seal();
    const tx = new Transaction();
    tx.setSender(address.body.data.address);
    tx.transferObjects([tx.splitCoins(tx.gas, [1_000])[0]!], alice.address);
    const bytes = await tx.build({ client });
    const { signature: userSignature } = await session.keypair.signTransaction(bytes);
    const signature = getZkLoginSignature({
      inputs: { proofPoints: data.proofPoints, issBase64Details: data.issBase64Details, headerBase64: data.headerBase64, addressSeed: data.addressSeed },
      maxEpoch: data.maxEpoch,
      userSignature,
    });
    const result = await client.core.executeTransaction({ transaction: bytes, signatures: [signature] });
    expect(result.$kind).toBe('Transaction');
  });
});

describe('audiences (manage scope, free)', () => {
  it('lists, adds (201, then 200 for the same), deletes (then 404), and a deleted audience is refused', async () => {
    const caller = await e2e.newCaller({ audiences: [] });
    expect((await e2e.call('GET', '/v1/zklogin/audiences', { key: caller.key })).body).toEqual({ data: [] });
    const added = await e2e.call('POST', '/v1/zklogin/audiences', { key: caller.key, body: { audience: 'web-client' } });
    expect(added.status).toBe(201);
    expect(added.body.data).toEqual({ id: expect.stringMatching(/^aud_/), audience: 'web-client', createdAt: new Date(e2e.gateway.clock.now()).toISOString() });
    const again = await e2e.call('POST', '/v1/zklogin/audiences', { key: caller.key, body: { audience: 'web-client' } });
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(added.body.data);
    expect((await e2e.call('GET', '/v1/zklogin/audiences', { key: caller.key })).body).toEqual({ data: [added.body.data] });
    const jwt = await e2e.jwt({ aud: 'web-client' });
    expect((await e2e.call('POST', '/v1/zklogin/address', { key: caller.key, body: { jwt } })).status).toBe(200);

    const deleted = await e2e.call('DELETE', `/v1/zklogin/audiences/${added.body.data.id}`, { key: caller.key });
    expect(deleted).toMatchObject({ status: 200, body: { data: { id: added.body.data.id, deleted: true } } });
    expect((await e2e.call('DELETE', `/v1/zklogin/audiences/${added.body.data.id}`, { key: caller.key })).body).toMatchObject({ code: 'NOT_FOUND' });
    expect((await e2e.call('POST', '/v1/zklogin/address', { key: caller.key, body: { jwt } })).body).toMatchObject({ code: 'AUDIENCE_NOT_ALLOWED' });
    // Another organization's entry is not ours to delete.
    const theirs = (await e2e.call('GET', '/v1/zklogin/audiences')).body.data[0];
    expect((await e2e.call('DELETE', `/v1/zklogin/audiences/${theirs.id}`, { key: caller.key })).status).toBe(404);
  });
});
