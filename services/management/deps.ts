import type { Clock } from '../core/index.js';
import type { Database } from '../db/index.js';
import type { IdentityChange } from '../identity/index.js';
import type { UpstreamSet } from '../upstream/index.js';
import type { WalletAllowance } from './wallet-allowance.js';

/** What the management routes need; handed over by the composition root. */
export interface ManagementDeps {
  database: Database;
  clock: Clock;
  /** Prepaid balance a wallet organization needs before it gets a key (integer micro-USD). */
  walletMinPrepaidMicroUsd: bigint;
  /** HMAC key of the stateless wallet challenges (the `wallet-challenges` subkey of the secret). */
  walletChallengeKey: Buffer;
  /** The anonymous wallet routes' allowance per client address (challenge and register share it). */
  walletAllowance: WalletAllowance;
  /** The networks' upstreams: mainnet's verifies a zkLogin wallet's registration signature. */
  upstreams: UpstreamSet;
  /**
   * Tells this process's authenticator of a committed change before the route replies: the
   * caller's next request must see it (a disabled key is refused at once), whatever the cache
   * TTL and however late the notification arrives back.
   */
  identityChanged(change: IdentityChange): void;
}
