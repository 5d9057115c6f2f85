import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { MultiSigPublicKey } from '@mysten/sui/multisig';
import { computeZkLoginAddressFromSeed, getZkLoginSignature, toZkLoginPublicIdentifier } from '@mysten/sui/zklogin';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantPrepaidCredit } from '../../services/identity/index.js';
import { defaultUpstreamPolicy, SuiUpstream, type Network, type Upstream } from '../../services/upstream/index.js';
import { call, type CallOptions } from '../support/management-calls.js';
import { startTestSimnet, type TestSimnet } from '../support/simnet-harness.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

/** An `iss` claim as the circuit sees it: base64url of `"iss":"…",`, tightly packed. */
function issClaim(): { iss: string; value: string } {
  let iss = 'https://accounts.google.com';
  while (`"iss":"${iss}",`.length % 3 !== 0) iss += '/';
  return { iss, value: Buffer.from(`"iss":"${iss}",`).toString('base64url') };
}

const ADDRESS_SEED = '8675309867530986753098675309';

/**
 * A zkLogin personal-message signature as a social-login wallet makes it: the ephemeral key signs,
 * the proof is well formed (simnet, as the upstream, checks everything but the Groth16 proof).
 */
async function zkLoginSign(message: string, maxEpoch: bigint, ephemeral = new Ed25519Keypair()): Promise<string> {
  const { signature: userSignature } = await ephemeral.signPersonalMessage(new TextEncoder().encode(message));
  return getZkLoginSignature({
    inputs: {
      proofPoints: { a: ['1', '2', '1'], b: [['1', '2'], ['3', '4'], ['1', '0']], c: ['1', '2', '1'] },
      issBase64Details: { value: issClaim().value, indexMod4: 0 },
      headerBase64: 'eyJhbGciOiJSUzI1NiJ9',
      addressSeed: ADDRESS_SEED,
    },
    maxEpoch: maxEpoch.toString(),
    userSignature,
  });
}

/**
 * An anonymous wallet call, each from an address of its own: these tests are about verifying
 * signatures, not the per-address allowance (10 calls a minute: wallet.allowance.security.test.ts),
 * which this file's calls from one address, on a clock that stands still, would spend.
 */
let visitors = 0;
function anonymous(app: TestApp, method: string, path: string, options: CallOptions = {}) {
  visitors += 1;
  return call(app, method, path, { ...options, remoteAddress: `198.51.100.${visitors}` });
}

function upstreamAt(network: Network, grpcUrl: string, graphqlUrl: string): Upstream {
  return new SuiUpstream({ network, endpoints: { grpcUrl, graphqlUrl }, policy: { ...defaultUpstreamPolicy, retries: 0 } });
}

describe('wallet registration with a zkLogin wallet (the mainnet upstream verifies it)', () => {
  let simnet: TestSimnet;
  let t: TestApp;
  let dead: TestApp;
  let none: TestApp;
  const upstreams: Upstream[] = [];
  const address = computeZkLoginAddressFromSeed(BigInt(ADDRESS_SEED), issClaim().iss, false);

  beforeAll(async () => {
    simnet = await startTestSimnet({ seed: 'wallet-zklogin' });
    const live = upstreamAt('mainnet', simnet.grpcUrl, simnet.graphqlUrl);
    // Nothing listens on port 1: every call to this upstream fails.
    const down = upstreamAt('mainnet', 'http://127.0.0.1:1', 'http://127.0.0.1:1/graphql');
    upstreams.push(live, down);
    t = await createTestApp({ extra: { upstreams: new Map([['mainnet', live]]) } });
    dead = await createTestApp({ extra: { upstreams: new Map([['mainnet', down]]) } });
    none = await createTestApp();
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await dead?.close();
    await none?.close();
    for (const upstream of upstreams) await upstream.close();
    await simnet?.stop();
  });

  const currentEpoch = () => simnet.ledger.currentEpoch().epoch;

  async function register(app: TestApp, sign: (message: string) => Promise<string>) {
    const challenge = await anonymous(app, 'GET', `/v1/wallet/challenge?address=${address}`);
    expect(challenge.status).toBe(200);
    const { challengeId, message } = challenge.body.data as { challengeId: string; message: string };
    return anonymous(app, 'POST', '/v1/wallet/register', { body: { address, challengeId, signature: await sign(message) } });
  }

  it('a zkLogin wallet registers: 402 until funded, then 201 with its key', async () => {
    const first = await register(t, (message) => zkLoginSign(message, currentEpoch() + 5n));
    expect(first.status).toBe(402);
    expect(first.body).toMatchObject({ code: 'INSUFFICIENT_PREPAID_BALANCE', organizationId: expect.stringMatching(/^org_/) });
    await grantPrepaidCredit(t.db.database.db, t.clock, first.body['organizationId'] as string, 5_000_000n, 'test');
    const second = await register(t, (message) => zkLoginSign(message, currentEpoch() + 5n));
    expect(second.status).toBe(201);
    expect(second.body.data).toMatchObject({ organizationId: first.body['organizationId'], scopes: ['data', 'streams', 'manage'] });
  });

  it('a zkLogin signature the chain refuses (expired, or over another message) is 401 WALLET_SIGNATURE_INVALID', async () => {
    const expired = await register(t, (message) => zkLoginSign(message, currentEpoch() - 1n));
    expect(expired.status).toBe(401);
    expect(expired.body.code).toBe('WALLET_SIGNATURE_INVALID');
    const other = await register(t, () => zkLoginSign('another message', currentEpoch() + 5n));
    expect(other.status).toBe(401);
    expect(other.body.code).toBe('WALLET_SIGNATURE_INVALID');
  });

  it('an upstream failure while verifying a zkLogin signature is 503 UPSTREAM_UNAVAILABLE, not a bad signature', async () => {
    const response = await register(dead, (message) => zkLoginSign(message, 1_000n));
    expect(response.status).toBe(503);
    expect(response.body.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(response.headers['retry-after']).toMatch(/^\d+$/);
    const recorded = await dead.db.database.db.selectFrom('wallet_challenges').select('id').execute();
    expect(recorded).toEqual([]);
  });

  it('a zkLogin signature with no mainnet upstream configured is 404 NETWORK_NOT_CONFIGURED', async () => {
    const response = await register(none, (message) => zkLoginSign(message, 1_000n));
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('NETWORK_NOT_CONFIGURED');
  });

  // The SDK verifies a multisig without a client: a zkLogin member's signature can only be
  // checked by the chain, and before it was refused here (401) whatever it signed.
  describe('a multisig wallet with a zkLogin member (built with the SDK\'s MultiSigPublicKey)', () => {
    const other = new Ed25519Keypair();
    const multisig = MultiSigPublicKey.fromPublicKeys({
      threshold: 1,
      publicKeys: [
        { publicKey: toZkLoginPublicIdentifier(BigInt(ADDRESS_SEED), issClaim().iss, { legacyAddress: false }), weight: 1 },
        { publicKey: other.getPublicKey(), weight: 1 },
      ],
    });
    const multisigAddress = multisig.toSuiAddress();
    async function registerMultisig(app: TestApp, sign: (message: string) => Promise<string>) {
      const challenge = await anonymous(app, 'GET', `/v1/wallet/challenge?address=${multisigAddress}`);
      const { challengeId, message } = challenge.body.data as { challengeId: string; message: string };
      const signature = multisig.combinePartialSignatures([await sign(message)]);
      return anonymous(app, 'POST', '/v1/wallet/register', { body: { address: multisigAddress, challengeId, signature } });
    }

    it('signed by its zkLogin member, the chain verifies it: it registers (402 until funded)', async () => {
      const response = await registerMultisig(t, (message) => zkLoginSign(message, currentEpoch() + 5n));
      expect(response.status).toBe(402);
      expect(response.body).toMatchObject({ code: 'INSUFFICIENT_PREPAID_BALANCE', organizationId: expect.stringMatching(/^org_/) });
    });

    it('its zkLogin member over another message, or expired, is 401 WALLET_SIGNATURE_INVALID; the chain unreachable is 503', async () => {
      for (const sign of [() => zkLoginSign('another message', currentEpoch() + 5n), (message: string) => zkLoginSign(message, currentEpoch() - 1n)]) {
        const response = await registerMultisig(t, sign);
        expect({ status: response.status, code: response.body.code }).toEqual({ status: 401, code: 'WALLET_SIGNATURE_INVALID' });
      }
      const unreachable = await registerMultisig(dead, (message) => zkLoginSign(message, 1_000n));
      expect({ status: unreachable.status, code: unreachable.body.code }).toEqual({ status: 503, code: 'UPSTREAM_UNAVAILABLE' });
    });

    it('signed by its Ed25519 member, it registers without the upstream', async () => {
      const response = await registerMultisig(dead, async (message) => (await other.signPersonalMessage(new TextEncoder().encode(message))).signature);
      expect({ status: response.status, code: response.body.code }).toEqual({ status: 402, code: 'INSUFFICIENT_PREPAID_BALANCE' });
    });
  });

  it('an Ed25519 wallet registers without the upstream', async () => {
    const wallet = Ed25519Keypair.generate();
    const challenge = await anonymous(dead, 'GET', `/v1/wallet/challenge?address=${wallet.toSuiAddress()}`);
    const { challengeId, message } = challenge.body.data as { challengeId: string; message: string };
    const { signature } = await wallet.signPersonalMessage(new TextEncoder().encode(message));
    const response = await anonymous(dead, 'POST', '/v1/wallet/register', { body: { address: wallet.toSuiAddress(), challengeId, signature } });
    expect(response.status).toBe(402);
    expect(response.body.code).toBe('INSUFFICIENT_PREPAID_BALANCE');
  });
});
