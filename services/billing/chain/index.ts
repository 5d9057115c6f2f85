export type { BillingNetwork, Chain, ChargeOutcome, ChargeRequest, DeclineReason, OnchainAllowance, OnchainAllowanceCap, PrepareRequest, SignedCharge } from './chain.js';
export { ChainUnavailable, ChargeDeclined, TransactionBuildFailed } from './chain.js';
export { SuiChain } from './sui-chain.js';
