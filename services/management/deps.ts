import type { Clock } from '../core/index.js';
import type { Database } from '../db/index.js';

/** What the management routes need; handed over by the composition root. */
export interface ManagementDeps {
  database: Database;
  clock: Clock;
  /** Prepaid balance a wallet organization needs before it gets a key (integer micro-USD). */
  walletMinPrepaidMicroUsd: bigint;
}
