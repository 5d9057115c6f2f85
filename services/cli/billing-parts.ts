import { decodeSuiPrivateKey } from '@mysten/sui/cryptography';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import type { Clock, Config, Logger, Network } from '../core/index.js';
import type { Database } from '../db/index.js';
import type { IdentityChange } from '../identity/index.js';
import type { UpstreamSet } from '../upstream/index.js';
import { BillingPass, BillingService, ChargingLock, OutboxMailer, SmtpMailer, SuiChain, type BillingNetwork, type Mailer } from '../billing/index.js';

/**
 * The deadline of each of billing's node calls (reads, a charge's build and execution). Without
 * one, a node that accepts a call and never answers held the pass, and the charging lock every
 * organization's charge needs, until the process was killed. An execution waits for its effects,
 * seconds on a busy network: 30 s is far above that, and a pass that meets a silent node ends
 * with ChainUnavailable for that plan, which the next pass retries (docs/billing.md).
 */
export const BILLING_CALL_TIMEOUT_MS = 30_000;

export interface BillingParts {
  service: BillingService;
  pass: BillingPass;
  lock: ChargingLock;
  mailer: Mailer;
}

/**
 * On-chain billing wired from the config: the Chain over each network's upstream SDK client,
 * the sponsor key (a secret: decoded here, never logged), the mailer (SMTP, else the outbox
 * file), one charging lock shared by the API's charges and the pass.
 */
export function billingParts(deps: {
  config: Readonly<Config>;
  database: Database;
  clock: Clock;
  upstreams: UpstreamSet;
  identityChanged?: (change: IdentityChange) => void;
  /** Instead of the configured one (tests: a real SMTP server in-process). */
  mailer?: Mailer;
  /** Where the pass reports a plan it could not process. */
  logger?: Logger;
  /** Instead of BILLING_CALL_TIMEOUT_MS (tests: a silent node in less than a second). */
  chainCallTimeoutMs?: number;
}): BillingParts {
  const { config, database, clock } = deps;
  const sponsor = config.billing.sponsorKey ? sponsorKeypair(config.billing.sponsorKey) : undefined;
  const clients = new Map([...deps.upstreams].map(([network, upstream]) => [network, upstream.grpcWithDeadline(deps.chainCallTimeoutMs ?? BILLING_CALL_TIMEOUT_MS)] as const));
  const settings = new Map(Object.entries(config.billing.networks) as [Network, BillingNetwork][]);
  const chain = new SuiChain({ clients, settings, sponsor });
  const lock = new ChargingLock(database);
  const organizationChanged = (organizationId: string) => deps.identityChanged?.({ organizationId });
  const service = new BillingService({ db: database.db, clock, chain, lock, organizationChanged });
  const mailer: Mailer = deps.mailer ?? (config.billing.smtpUrl
    ? new SmtpMailer({ url: config.billing.smtpUrl, from: config.billing.emailFrom })
    : new OutboxMailer({ path: config.billing.outboxPath, now: () => clock.now() }));
  const pass = new BillingPass({ db: database.db, clock, chain, charger: service.charger, mailer, organizationChanged, ...(deps.logger ? { logger: deps.logger } : {}) });
  return { service, pass, lock, mailer };
}

/** The config schema has checked that the key decodes as ED25519. */
function sponsorKeypair(key: string): Ed25519Keypair {
  return Ed25519Keypair.fromSecretKey(decodeSuiPrivateKey(key).secretKey);
}
