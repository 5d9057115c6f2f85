import { deriveSubkey, type Clock, type Config, type Metrics } from '../core/index.js';
import type { Database } from '../db/index.js';
import type { RateLimiter } from '../metering/index.js';
import type { UpstreamSet } from '../upstream/index.js';
import { AudienceStore } from './audiences.js';
import type { ZkLoginDeps } from './deps.js';
import { issuerJwksUrls } from './issuers.js';
import { JwtVerifier } from './jwt-verifier.js';
import { ProofRateLimit } from './proof-rate.js';
import { NO_PROVER, type Prover } from './prover.js';
import { HttpProver } from './prover.http.js';
import { LocalProver } from './prover.local.js';
import { ProverSlots } from './prover-slots.js';
import { SaltDeriver } from './salt.js';
import { ZkLoginService } from './service.js';

export interface ZkLoginSetup {
  config: Pick<Config, 'zklogin'>;
  database: Database;
  clock: Clock;
  /** The process's server secret; the salt master derives from it unless SUIGW_ZKLOGIN_SALT_SECRET is set. */
  secret: string;
  /** The metering limiter: proofs per minute are counted where the request rates are (Redis or memory). */
  limiter: RateLimiter;
  /** The process's metrics: refused proofs count as `suigw_rate_limit_rejections_total{kind="proofs"}`. */
  metrics?: Pick<Metrics, 'rateLimitRejections'>;
  upstreams: UpstreamSet;
  /** Overrides the configured prover (tests). */
  prover?: Prover;
}

/** Builds the zkLogin capability's dependencies from the configuration. */
export function createZkLogin(setup: ZkLoginSetup): ZkLoginDeps {
  const { config, database, clock } = setup;
  const settings = config.zklogin;
  const audiences = new AudienceStore(database.db, clock);
  const master = settings.saltSecret === undefined ? deriveSubkey(setup.secret, 'zklogin-salt') : Buffer.from(settings.saltSecret, 'utf8');
  const service = new ZkLoginService({
    verifier: new JwtVerifier({ jwksUrls: issuerJwksUrls(settings.issuerJwks), clock }),
    salts: new SaltDeriver(master),
    audiences,
    prover: setup.prover ?? proverFrom(settings),
    slots: new ProverSlots(settings.proverSlots),
    proofRate: new ProofRateLimit(setup.limiter, setup.metrics?.rateLimitRejections),
    clock,
  });
  return { service, audiences, upstreams: setup.upstreams };
}

function proverFrom(settings: Config['zklogin']): Prover {
  if (settings.proverUrl === undefined) return NO_PROVER;
  if (settings.proverUrl === 'local') return new LocalProver();
  return new HttpProver({ url: settings.proverUrl, timeoutMs: settings.proverTimeoutMs });
}
