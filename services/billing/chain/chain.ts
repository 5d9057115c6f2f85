import type { Network } from '../../core/index.js';

/**
 * The billing app on one network (move/suigw_billing): where it lives, which coin it accepts,
 * where charges go. The spender is the address of the sponsor key that signs charges.
 */
export interface BillingNetwork {
  readonly packageId: string;
  /** The shared `billing::BillingConfig` (spender, treasury). */
  readonly configId: string;
  /** USDC's coin type on this network (the one accepted coin). */
  readonly usdcType: string;
  readonly treasury: string;
}

/** An allowance as the chain holds it (`0x2::allowance::Allowance<Balance<T>>`). */
export interface OnchainAllowance {
  readonly objectId: string;
  readonly coinType: string;
  readonly funder: string;
  readonly spender: string | null;
  readonly app: string | null;
  /** The organization it is named for. */
  readonly name: string;
  /** Most that can be taken per period (calendar month, or 12-month window). */
  readonly periodLimit: bigint;
  readonly windowMonths: number;
  /** The 12-month windows' anchor: the chain's time of the first spend (0 before any spend). */
  readonly windowStartMs: number;
  /** The window of the last spend (year × 100 + month of its start) and what it has spent. */
  readonly month: number;
  readonly periodSpent: bigint;
  readonly startMs: number;
  readonly expirationMs: number | null;
}

/** An allowance's cap as the chain holds it (`0x2::allowance::AllowanceCap<Balance<T>>`): soulbound to the funder, it revokes that allowance. */
export interface OnchainAllowanceCap {
  readonly objectId: string;
  /** The allowance it revokes. */
  readonly allowanceId: string;
  readonly coinType: string;
  /** Its owning address (null: not owned by an address). */
  readonly owner: string | null;
}

/** What the funder signs in `prepare`: prefund, propose, issue (one transaction). */
export interface PrepareRequest {
  readonly funder: string;
  readonly organization: string;
  readonly periodLimit: bigint;
  readonly windowMonths: 1 | 12;
  /** Moved from the funder's USDC coins into the funder's USDC address balance (0: none). */
  readonly prefund: bigint;
  readonly startMs: number;
  readonly expirationMs: number | null;
}

/** A charge transaction signed by the sponsor key; kept before it is sent (exactly-once). */
export interface SignedCharge {
  readonly digest: string;
  /** base64 */
  readonly txBytes: string;
  readonly signature: string;
}

export interface ChargeRequest {
  readonly allowanceId: string;
  readonly funder: string;
  readonly amount: bigint;
  /** The period's key (the charge's due time, ms): emitted in the ChargeEvent. */
  readonly period: number;
}

/** Why the chain refused a charge: the customer's side (spec: balance, revoked, expired). */
export type DeclineReason = 'balance_below_price' | 'allowance_revoked' | 'allowance_expired' | 'allowance_refused';

export type ChargeOutcome =
  | { readonly kind: 'succeeded'; readonly digest: string }
  | { readonly kind: 'declined'; readonly digest: string | null; readonly reason: DeclineReason; readonly message: string };

/**
 * A failure of ours or of the network (node down, transport, our gas): never the customer's.
 * Charging retries it hourly, with no email and no state change.
 */
export class ChainUnavailable extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ChainUnavailable';
  }
}

/** The chain refused a charge while it was built (the node's dry run): nothing was sent. */
export class ChargeDeclined extends Error {
  constructor(readonly reason: DeclineReason, message: string) {
    super(message);
    this.name = 'ChargeDeclined';
  }
}

/** The transaction could not be built (bad funder, no USDC to prefund): 400 TX_BUILD_FAILED. */
export class TransactionBuildFailed extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TransactionBuildFailed';
  }
}

/** The billing service's view of Sui: one implementation per chain client, no mock in tests (simnet). */
export interface Chain {
  /** The address of the sponsor key: the allowance's spender; pays gas for charges. */
  readonly spender: string;
  networks(): readonly Network[];
  settings(network: Network): BillingNetwork;
  /** The network's current protocol version (allowances need 138 on mainnet). */
  protocolVersion(network: Network): Promise<number>;
  /** Unsigned transaction bytes for the funder to sign (they pay its gas). */
  buildPrepare(network: Network, request: PrepareRequest): Promise<Uint8Array>;
  /** null: no such allowance (never created, or revoked: revoking deletes it). */
  allowance(network: Network, allowanceId: string): Promise<OnchainAllowance | null>;
  /** null: no such object, or not an AllowanceCap. */
  allowanceCap(network: Network, capId: string): Promise<OnchainAllowanceCap | null>;
  /** The funder's address balance of the coin (allowances take only from it). */
  addressBalance(network: Network, owner: string, coinType: string): Promise<bigint>;
  /** Builds and signs a charge; nothing is sent. ChargeDeclined when the dry run already refuses it. */
  signCharge(network: Network, request: ChargeRequest): Promise<SignedCharge>;
  /** Sends a signed charge (the same bytes may be sent again: the chain runs a digest once). */
  submit(network: Network, charge: SignedCharge): Promise<ChargeOutcome>;
  /** What the chain knows of a digest; null: never executed (it may still be sent). */
  lookup(network: Network, digest: string): Promise<ChargeOutcome | null>;
  /** Whether a signed charge can never execute any more (its gas coin moved on without it). */
  isSpent(network: Network, charge: SignedCharge): Promise<boolean>;
}
