import { computeZkLoginAddressFromSeed, genAddressSeed, generateNonce, generateRandomness } from '@mysten/sui/zklogin';
import { ApiError, retryAfter, type Clock, type Network } from '../core/index.js';
import type { Plan } from '../plans/index.js';
import type { Upstream } from '../upstream/index.js';
import type { AudienceStore } from './audiences.js';
import { parseExtendedEphemeralKey } from './ephemeral-key.js';
import { CurrentEpochs } from './epochs.js';
import { jwtTooLongForCircuit } from './jwt-limits.js';
import type { JwtVerifier, VerifiedJwt } from './jwt-verifier.js';
import type { ProofRateLimit } from './proof-rate.js';
import { ProverError, type ProofResponse, type Prover } from './prover.js';
import type { ProverSlots } from './prover-slots.js';
import { SEED_VERSION, type SaltDeriver } from './salt.js';

/** The spec's epoch window: maxEpoch within current..current+30, nonce epochs 0..30. */
export const MAX_EPOCHS_AHEAD = 30;
/** A proof takes about 3 seconds (spec): when a slot may be free again. */
const PROVER_BUSY_RETRY_S = 3;

export interface ZkLoginServiceDeps {
  verifier: JwtVerifier;
  salts: SaltDeriver;
  audiences: AudienceStore;
  prover: Prover;
  slots: ProverSlots;
  proofRate: ProofRateLimit;
  /** The service clock: how long a read current epoch is reused. */
  clock: Clock;
}

export interface AddressResult {
  salt: string;
  addressSeed: string;
  address: string;
  seedVersion: number;
}

export interface NonceResult {
  nonce: string;
  jwtRandomness: string;
  maxEpoch: number;
  expiresAt: number;
}

export interface ProveInput {
  jwt: string;
  extendedEphemeralPublicKey: string;
  maxEpoch: number;
  jwtRandomness: string;
}

export type ProveResult = ProofResponse & { addressSeed: string; maxEpoch: number };

/** zkLogin's domain: salts and addresses, nonces, proofs. Transport-free; the routes are thin. */
export class ZkLoginService {
  readonly #deps: ZkLoginServiceDeps;
  readonly #epochs: CurrentEpochs;

  constructor(deps: ZkLoginServiceDeps) {
    this.#deps = deps;
    this.#epochs = new CurrentEpochs(deps.clock);
  }

  async address(organizationId: string, jwt: string): Promise<AddressResult> {
    const claims = await this.#verify(jwt);
    const salt = await this.#saltFor(organizationId, claims);
    const addressSeed = addressSeedOf(salt, claims);
    // The current scheme, not the legacy address (what the SDK's jwtToAddress(jwt, salt, false) gives).
    const address = computeZkLoginAddressFromSeed(addressSeed, claims.iss, false);
    return { salt: salt.toString(), addressSeed: addressSeed.toString(), address, seedVersion: SEED_VERSION };
  }

  async nonce(network: Network, upstream: Upstream | undefined, input: { extendedEphemeralPublicKey: string; epochs: number }): Promise<NonceResult> {
    supportedNetwork(network);
    const publicKey = parseExtendedEphemeralKey(input.extendedEphemeralPublicKey);
    const current = await this.#epochs.read(requireUpstream(upstream));
    const maxEpoch = current.epoch + input.epochs;
    const jwtRandomness = generateRandomness();
    return {
      nonce: generateNonce(publicKey, maxEpoch, jwtRandomness),
      jwtRandomness,
      maxEpoch,
      // The session lasts until the end of maxEpoch: an estimate from the epoch's start and length.
      expiresAt: current.startMs + (input.epochs + 1) * current.durationMs,
    };
  }

  async prove(organizationId: string, plan: Plan, network: Network, upstream: Upstream | undefined, input: ProveInput, signal?: AbortSignal): Promise<ProveResult> {
    supportedNetwork(network);
    const publicKey = parseExtendedEphemeralKey(input.extendedEphemeralPublicKey);
    const claims = await this.#verify(input.jwt);
    if (claims.nonce === undefined || claims.nonce !== generateNonce(publicKey, input.maxEpoch, input.jwtRandomness)) {
      throw new ApiError('NONCE_MISMATCH', { message: "The token's nonce is not the nonce of this ephemeral key, maxEpoch and jwtRandomness." });
    }
    const current = await this.#epochs.read(requireUpstream(upstream));
    if (input.maxEpoch < current.epoch || input.maxEpoch > current.epoch + MAX_EPOCHS_AHEAD) {
      throw new ApiError('MAX_EPOCH_OUT_OF_RANGE', { message: `maxEpoch must be within ${current.epoch}..${current.epoch + MAX_EPOCHS_AHEAD} (the current epoch is ${current.epoch}).` });
    }
    const salt = await this.#saltFor(organizationId, claims);
    // A slot first, then the plan's proof budget: a caller refused for a busy prover keeps its budget.
    const release = this.#deps.slots.tryAcquire(organizationId);
    if (!release) throw new ApiError('PROVER_BUSY', { message: 'Every prover slot this organization may use is busy.', ...retryAfter(PROVER_BUSY_RETRY_S) });
    try {
      const rate = await this.#deps.proofRate.take(organizationId, plan);
      if (!rate.allowed) {
        throw new ApiError('PROOF_RATE_LIMITED', { message: `The ${plan.id} plan allows ${plan.proofsPerMinute ?? 0} proofs per minute.`, ...retryAfter(rate.retryAfterSeconds) });
      }
      const proof = await this.#prove(input, salt, signal);
      return { ...proof, addressSeed: addressSeedOf(salt, claims).toString(), maxEpoch: input.maxEpoch };
    } finally {
      release();
    }
  }

  /**
   * The token verified, and short enough for the circuit: a longer one can never be proven, so it
   * is the caller's 400 on /address and /prove alike, never a prover call that fails (502).
   */
  async #verify(jwt: string): Promise<VerifiedJwt> {
    const claims = await this.#deps.verifier.verify(jwt);
    const tooLong = jwtTooLongForCircuit(jwt);
    if (tooLong) throw new ApiError('INVALID_JWT', { message: tooLong });
    return claims;
  }

  async #prove(input: ProveInput, salt: bigint, signal: AbortSignal | undefined): Promise<ProofResponse> {
    try {
      return await this.#deps.prover.prove({
        jwt: input.jwt,
        extendedEphemeralPublicKey: input.extendedEphemeralPublicKey,
        maxEpoch: String(input.maxEpoch),
        jwtRandomness: input.jwtRandomness,
        salt: salt.toString(),
        keyClaimName: 'sub',
      }, signal);
    } catch (error) {
      throw new ApiError('PROVER_FAILED', { message: error instanceof ProverError ? error.message : 'The prover failed.', cause: error });
    }
  }

  /** The audience must be on the organization's list; the list is the salt service's state. */
  async #saltFor(organizationId: string, claims: VerifiedJwt): Promise<bigint> {
    let allowed: boolean;
    try {
      allowed = await this.#deps.audiences.isAllowed(organizationId, claims.aud);
    } catch (error) {
      throw new ApiError('SALT_UNAVAILABLE', { message: 'The salt service is unavailable.', ...retryAfter(5), cause: error });
    }
    if (!allowed) throw new ApiError('AUDIENCE_NOT_ALLOWED', { message: `The client ID ${JSON.stringify(claims.aud)} is not on the organization's audience list.` });
    return this.#deps.salts.saltOf({ organizationId, iss: claims.iss, aud: claims.aud, sub: claims.sub });
  }
}

function addressSeedOf(salt: bigint, claims: VerifiedJwt): bigint {
  try {
    return genAddressSeed(salt, 'sub', claims.sub, claims.aud);
  } catch (error) {
    throw new ApiError('INVALID_JWT', { message: error instanceof Error ? error.message : 'The token cannot make an address seed.' });
  }
}

/** Spec: "Mainnet and testnet only; devnet is rejected." */
function supportedNetwork(network: Network): void {
  if (network !== 'mainnet' && network !== 'testnet') throw new ApiError('NETWORK_NOT_SUPPORTED', { message: 'zkLogin serves mainnet and testnet keys only.' });
}

function requireUpstream(upstream: Upstream | undefined): Upstream {
  if (!upstream) throw new ApiError('CHAIN_UNAVAILABLE', { message: 'No upstream is configured for this network.', ...retryAfter(30) });
  return upstream;
}
