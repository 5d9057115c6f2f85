import type { App, Capability } from '../route-contract/index.js';
import type { ZkLoginDeps } from './deps.js';
import { registerAddress } from './routes/address.js';
import { registerAudiences } from './routes/audiences.js';
import { registerNonce } from './routes/nonce.js';
import { registerProve } from './routes/prove.js';

export type { ZkLoginDeps } from './deps.js';
export { AudienceStore, type Audience } from './audiences.js';
export { JwtVerifier, type JwtVerifierOptions, type VerifiedJwt } from './jwt-verifier.js';
export { DEFAULT_ISSUER_JWKS, issuerJwksUrls, type ZkLoginIssuer } from './issuers.js';
export { SaltDeriver, SEED_VERSION } from './salt.js';
export { NO_PROVER, ProverError, type Prover, type ProofRequest, type ProofResponse } from './prover.js';
export { HttpProver, type HttpProverOptions } from './prover.http.js';
export { LocalProver, localProof, type LocalProverOptions } from './prover.local.js';
export { ProverSlots } from './prover-slots.js';
export { ProofRateLimit } from './proof-rate.js';
export { ZkLoginService, type ZkLoginServiceDeps } from './service.js';
export { createZkLogin, type ZkLoginSetup } from './setup.js';

/** The zkLogin endpoints (spec: zkLogin), registered once per network. */
export function zkloginCapability(deps: ZkLoginDeps): Capability {
  return (app: App) => {
    registerAddress(app, deps);
    registerNonce(app, deps);
    registerProve(app, deps);
    registerAudiences(app, deps);
  };
}
