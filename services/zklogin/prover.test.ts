import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { generateNonce, getExtendedEphemeralPublicKey } from '@mysten/sui/zklogin';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestProverServer, type TestProverServer } from '../../test/support/zklogin-prover-server.js';
import { HttpProver, localProof, ProverError, type ProofRequest } from './index.js';
import { issBase64Details } from './prover.local.js';

const keypair = new Ed25519Keypair();
const randomness = '98765432109876543210';
const maxEpoch = 12;

function token(claims: Record<string, unknown>, header: Record<string, unknown> = { alg: 'RS256', kid: 'k1' }): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part(header)}.${part(claims)}.${Buffer.from('signature').toString('base64url')}`;
}

function request(overrides: Partial<ProofRequest> = {}, claims: Record<string, unknown> = {}): ProofRequest {
  const nonce = generateNonce(keypair.getPublicKey(), maxEpoch, randomness);
  return {
    jwt: token({ iss: 'https://accounts.google.com', aud: 'client', sub: 'user', nonce, ...claims }),
    extendedEphemeralPublicKey: getExtendedEphemeralPublicKey(keypair.getPublicKey()),
    maxEpoch: String(maxEpoch),
    jwtRandomness: randomness,
    salt: '12345',
    keyClaimName: 'sub',
    ...overrides,
  };
}

/** Decodes an issBase64Details slice as the circuit (and the SDK's extractClaimValue) does. */
function decodeSlice(value: string, indexMod4: number): string {
  let bits = [...value].map((c) => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'.indexOf(c).toString(2).padStart(6, '0')).join('');
  bits = bits.slice([0, 2, 4][indexMod4]!);
  bits = bits.slice(0, bits.length - (bits.length % 8));
  return Buffer.from(bits.match(/.{8}/g)!.map((byte) => parseInt(byte, 2))).toString('utf8');
}

describe('localProof: the prover service\'s checks', () => {
  it('answers in the service format, with the token\'s header and iss slice', () => {
    const input = request();
    const proof = localProof(input);
    expect(proof.headerBase64).toBe(input.jwt.split('.')[0]);
    expect(proof.proofPoints.a).toHaveLength(3);
    expect(proof.proofPoints.b.map((pair) => pair.length)).toEqual([2, 2, 2]);
    expect(decodeSlice(proof.issBase64Details.value, proof.issBase64Details.indexMod4)).toBe('"iss":"https://accounts.google.com",');
  });

  it.each([0, 1, 2, 3, 4, 5])('the iss slice decodes at every alignment (%d bytes before it)', (pad) => {
    const payload = Buffer.from(`{${pad ? `"p":"${'x'.repeat(pad)}",` : ''}"iss":"https://id.twitch.tv/oauth2","sub":"s"}`).toString('base64url');
    const details = issBase64Details(payload);
    expect(details.indexMod4).toBeLessThan(3);
    expect(decodeSlice(details.value, details.indexMod4)).toBe('"iss":"https://id.twitch.tv/oauth2",');
  });

  it.each<[string, Partial<ProofRequest>, Record<string, unknown>]>([
    ['another keyClaimName', { keyClaimName: 'email' as 'sub' }, {}],
    ['a salt of 2^128', { salt: (2n ** 128n).toString() }, {}],
    ['a non-decimal randomness', { jwtRandomness: '0x10' }, {}],
    ['another maxEpoch than the nonce\'s', { maxEpoch: String(maxEpoch + 1) }, {}],
    ['a token without a nonce', {}, { nonce: undefined }],
    ['a token with an array audience', {}, { aud: ['a', 'b'] }],
    ['a raw ephemeral key', { extendedEphemeralPublicKey: Buffer.from(keypair.getPublicKey().toRawBytes()).toString('base64') }, {}],
    ['a two-part token', { jwt: 'a.b' }, {}],
  ])('refuses %s', (_name, overrides, claims) => {
    expect(() => localProof(request(overrides, claims))).toThrow(ProverError);
  });

  it('refuses a header without kid', () => {
    const input = request();
    const [, payload, signature] = input.jwt.split('.');
    const header = Buffer.from(JSON.stringify({ alg: 'RS256' })).toString('base64url');
    expect(() => localProof({ ...input, jwt: `${header}.${payload}.${signature}` })).toThrow(ProverError);
  });
});

describe('HttpProver: the prover service API over HTTP', () => {
  let server: TestProverServer;
  let release: () => void = () => {};
  let holding = false;
  beforeAll(async () => {
    server = await startTestProverServer({ hold: () => (holding ? new Promise<void>((resolve) => { release = resolve; }) : Promise.resolve()) });
  });
  afterAll(async () => { await server.stop(); });

  it('returns the service\'s proof', async () => {
    const input = request();
    await expect(new HttpProver({ url: server.url, timeoutMs: 5_000 }).prove(input)).resolves.toEqual(localProof(input));
  });

  it('a refusal, a 500 and an answer that is no proof are ProverErrors', async () => {
    const prover = new HttpProver({ url: `${server.url}/`, timeoutMs: 5_000 });
    await expect(prover.prove(request({ salt: 'x' }))).rejects.toThrow(/refused the request \(HTTP 400\)/);
    server.setMode('fail');
    await expect(prover.prove(request())).rejects.toThrow(/HTTP 500/);
    server.setMode('garbage');
    await expect(prover.prove(request())).rejects.toThrow(/unexpected shape/);
    server.setMode('ok');
  });

  it('a prover that does not answer within the timeout, or cannot be reached', async () => {
    holding = true;
    try {
      await expect(new HttpProver({ url: server.url, timeoutMs: 200 }).prove(request())).rejects.toThrow(/did not answer within 200 ms/);
    } finally {
      holding = false;
      release();
    }
    await expect(new HttpProver({ url: 'http://127.0.0.1:1', timeoutMs: 5_000 }).prove(request())).rejects.toThrow(/could not be reached/);
  });

  it('a caller that goes away cancels the call', async () => {
    holding = true;
    const controller = new AbortController();
    const pending = new HttpProver({ url: server.url, timeoutMs: 5_000 }).prove(request(), controller.signal);
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(ProverError);
    holding = false;
    release();
  });
});
