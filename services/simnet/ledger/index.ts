/**
 * The simnet ledger: a deterministic, in-memory Sui chain.
 *
 * Everything the gRPC services, the GraphQL server and the faucet serve is read through
 * {@link LedgerReader}. Transactions are executed by `../execution` (`Executor.execute` then
 * `applyOutcome`), which writes through the {@link Ledger}'s low-level methods (`putObject`,
 * `deleteObject`, `adjustAddressBalance`, `putAllowance`, `addTransaction`); the producer (or
 * a test) seals pending transactions with `sealCheckpoint`.
 *
 * Conventions: addresses and ids are normalized (`0x` + 64 hex); type strings carry full
 * 64-hex addresses (`0x000…02::sui::SUI`); digests are base58; amounts are bigint. Pass
 * addresses and types in any form the SDK accepts: readers normalize their arguments.
 *
 * Ordering and visibility: an executed transaction changes objects and balances at once; it
 * gets `checkpoint` / `timestampMs` (and its events too) when the next checkpoint is sealed.
 * Listing functions return items in ascending order (checkpoint, then position) unless a
 * `descending` flag says otherwise.
 */
export type * from './types.js';
export { Ledger, ownerIndexKey, compareOwnerIndexKeys } from './ledger.js';
export type { OwnerIndexKey } from './ledger.js';
export { createLedger } from './genesis.js';
export type { LedgerOptions, GenesisAccount } from './ledger.js';
export { SUI_COIN_TYPE } from './constants.js';
export { typeFilterMatcher } from './normalize.js';
export type * from './reader.js';

export { InvalidArgumentError, InvalidCursorError } from './errors.js';
