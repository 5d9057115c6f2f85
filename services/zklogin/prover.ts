/**
 * The zero-knowledge prover, behind one small interface: `HttpProver` speaks Mysten's prover
 * service API (the self-hosted prover image), `LocalProver` stands in for it in tests and dev.
 */

/** The body of Mysten's prover service (`POST /v1`). */
export interface ProofRequest {
  jwt: string;
  /** base64 of flag ‖ ephemeral public key. */
  extendedEphemeralPublicKey: string;
  /** Decimal strings, as the service takes them. */
  maxEpoch: string;
  jwtRandomness: string;
  salt: string;
  keyClaimName: 'sub';
}

/** The prover service's answer: the Groth16 proof and the parts of the JWT the circuit saw. */
export interface ProofResponse {
  proofPoints: { a: string[]; b: string[][]; c: string[] };
  issBase64Details: { value: string; indexMod4: number };
  headerBase64: string;
}

export interface Prover {
  /** Throws `ProverError` when no proof was made. */
  prove(request: ProofRequest, signal?: AbortSignal): Promise<ProofResponse>;
}

/** No proof was made (502 PROVER_FAILED); `message` is safe to show the caller. */
export class ProverError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ProverError';
  }
}

/** A deployment without a prover: every proof fails, saying so (SUIGW_ZKLOGIN_PROVER_URL unset). */
export const NO_PROVER: Prover = {
  async prove() {
    throw new ProverError('No prover is configured (SUIGW_ZKLOGIN_PROVER_URL).');
  },
};
