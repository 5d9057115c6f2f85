import { createHash } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { generateNonce } from '@mysten/sui/zklogin';
import { parseExtendedEphemeralKey } from './ephemeral-key.js';
import { jwtTooLongForCircuit } from './jwt-limits.js';
import { ProverError, type ProofRequest, type ProofResponse, type Prover } from './prover.js';

/** BN254's scalar field: every proof coordinate is an element of it. */
const FIELD = 21888242871839275222246405745257275088548364400416034343698204186575808495617n;
const TWO_128 = 2n ** 128n;

export interface LocalProverOptions {
  /** Awaited before each answer: a test holds proofs in flight with it (a slow prover, without timers). */
  hold?: () => Promise<void>;
}

/**
 * A stand-in for Mysten's prover service, for tests and `suigw dev`: it checks its inputs as the
 * real service does (field bounds, the JWT's shape and length, `keyClaimName`, the nonce against
 * key, maxEpoch and randomness) and answers in the real response format, with the real
 * `issBase64Details` and `headerBase64` of the token. Its proof points are NOT a Groth16 proof:
 * a transaction signed with them does not verify on chain (simnet checks zkLogin structurally
 * and accepts them). Never configure it in front of a real network.
 */
export class LocalProver implements Prover {
  readonly #hold: (() => Promise<void>) | undefined;
  #inFlight = 0;
  #maxInFlight = 0;
  #proofs = 0;

  constructor(options: LocalProverOptions = {}) {
    this.#hold = options.hold;
  }

  /** Proofs made, and the most that were in flight at once (tests read them). */
  get stats(): { proofs: number; inFlight: number; maxInFlight: number } {
    return { proofs: this.#proofs, inFlight: this.#inFlight, maxInFlight: this.#maxInFlight };
  }

  async prove(request: ProofRequest): Promise<ProofResponse> {
    this.#inFlight += 1;
    this.#maxInFlight = Math.max(this.#maxInFlight, this.#inFlight);
    try {
      const response = localProof(request);
      if (this.#hold) await this.#hold();
      this.#proofs += 1;
      return response;
    } finally {
      this.#inFlight -= 1;
    }
  }
}

/** The local prover's checks and answer, without state. Throws `ProverError` as the service fails. */
export function localProof(request: ProofRequest): ProofResponse {
  if (request.keyClaimName !== 'sub') throw new ProverError(`keyClaimName must be sub, got ${String(request.keyClaimName)}`);
  const salt = fieldBelow(request.salt, TWO_128, 'salt');
  const randomness = fieldBelow(request.jwtRandomness, TWO_128, 'jwtRandomness');
  const maxEpoch = fieldBelow(request.maxEpoch, 2n ** 64n, 'maxEpoch');
  let publicKey;
  try {
    publicKey = parseExtendedEphemeralKey(request.extendedEphemeralPublicKey);
  } catch {
    throw new ProverError('Invalid extendedEphemeralPublicKey');
  }
  const [header, payload, signature] = request.jwt.split('.');
  if (header === undefined || payload === undefined || signature === undefined || request.jwt.split('.').length !== 3) throw new ProverError('Invalid JWT: expected three parts');
  const tooLong = jwtTooLongForCircuit(request.jwt);
  if (tooLong) throw new ProverError(`Invalid JWT: ${tooLong}`);
  let claims;
  try {
    const protectedHeader = decodeProtectedHeader(request.jwt);
    if (typeof protectedHeader.kid !== 'string' || typeof protectedHeader.alg !== 'string') throw new Error('no kid or alg');
    claims = decodeJwt(request.jwt);
  } catch (error) {
    throw new ProverError(`Invalid JWT: ${error instanceof Error ? error.message : 'undecodable'}`);
  }
  if (typeof claims.iss !== 'string' || typeof claims.sub !== 'string' || typeof claims.aud !== 'string') throw new ProverError('Invalid JWT: iss, sub and a single aud are required');
  if (typeof claims['nonce'] !== 'string') throw new ProverError('Invalid JWT: no nonce');
  if (claims['nonce'] !== generateNonce(publicKey, Number(maxEpoch), randomness)) throw new ProverError('Invalid nonce');
  return {
    proofPoints: pseudoProofPoints(request.jwt, salt, request.extendedEphemeralPublicKey, maxEpoch, randomness),
    issBase64Details: issBase64Details(payload),
    headerBase64: header,
  };
}

function fieldBelow(value: string, bound: bigint, name: string): bigint {
  if (typeof value !== 'string' || !/^\d{1,80}$/.test(value)) throw new ProverError(`Invalid ${name}: expected a decimal string`);
  const number = BigInt(value);
  if (number >= bound) throw new ProverError(`Invalid ${name}: out of range`);
  return number;
}

/**
 * The `iss` claim as the circuit sees it: the shortest base64url slice of the payload that covers
 * `"iss":"…"` with its following `,` or `}`, and the slice's start index mod 4 (what
 * `extractClaimValue` of @mysten/sui/zklogin decodes).
 */
export function issBase64Details(payloadBase64: string): { value: string; indexMod4: number } {
  const json = Buffer.from(payloadBase64, 'base64url').toString('utf8');
  const match = /"iss"\s*:\s*"(?:[^"\\]|\\.)*"\s*[,}]/.exec(json);
  if (!match) throw new ProverError('Invalid JWT: no iss claim');
  const startByte = Buffer.byteLength(json.slice(0, match.index));
  const endByte = startByte + Buffer.byteLength(match[0]);
  const first = Math.floor((startByte * 8) / 6);
  const last = Math.floor((endByte * 8 - 1) / 6);
  return { value: payloadBase64.slice(first, last + 1), indexMod4: first % 4 };
}

/** Field elements in the shape of a Groth16 proof (affine points with z = 1), NOT a proof. */
function pseudoProofPoints(...inputs: (string | bigint)[]): ProofResponse['proofPoints'] {
  const element = (label: string) => (BigInt(`0x${createHash('sha256').update(label).update(inputs.join('|')).digest('hex')}`) % FIELD).toString();
  return {
    a: [element('a.x'), element('a.y'), '1'],
    b: [[element('b.x0'), element('b.x1')], [element('b.y0'), element('b.y1')], ['1', '0']],
    c: [element('c.x'), element('c.y'), '1'],
  };
}
