/** What every reader of the ledger sees: pages, filters and the read interface (the ledger implements it). */
import type {
  AllowanceRecord,
  BalanceRecord,
  CheckpointRecord,
  CoinTypeRecord,
  EpochRecord,
  EventRecord,
  MovePackageRecord,
  NameRecord,
  ObjectRecord,
  ObjectTombstone,
  ProtocolConfigRecord,
  SystemStateRecord,
  TransactionRecord,
} from './types.js';

/** A page of results; `nextCursor` is opaque and absent on the last page. */
export interface Page<T> {
  readonly items: readonly T[];
  readonly nextCursor?: string;
}

export interface PageRequest {
  /** Opaque cursor returned by a previous page. Throws {@link InvalidCursorError} if malformed. */
  readonly cursor?: string;
  /** Maximum items (default 50, capped at 1000). */
  readonly limit?: number;
}

/** Filter for {@link LedgerReader.listTransactions}. All set fields must match. */
export interface TransactionFilter {
  readonly sender?: string;
  /** Any address whose objects or balances the transaction changed (includes sender). */
  readonly affectedAddress?: string;
  /** The object appears in the transaction's changed objects or inputs. */
  readonly affectedObject?: string;
  readonly checkpoint?: bigint;
  /** Only transactions already sealed into a checkpoint (default true). */
  readonly sealedOnly?: boolean;
}

/** Filter for {@link LedgerReader.listEvents}. All set fields must match. */
export interface EventFilter {
  readonly sender?: string;
  readonly transactionDigest?: string;
  /**
   * A type filter in the forms Sui accepts: `0xPKG`, `0xPKG::module`, `0xPKG::module::Name`
   * (any instantiation) or a full instantiation `0xPKG::module::Name<A, B>`.
   */
  readonly type?: string;
  /** Events emitted by a function of this module (`0xPKG::module`). */
  readonly emittingModule?: string;
  readonly checkpoint?: bigint;
}

export interface OwnedObjectsFilter {
  /** Struct tag, with or without type parameters (`0x2::coin::Coin` matches every coin). */
  readonly type?: string;
}

/** A listener for newly sealed checkpoints (called synchronously, in order, no gaps). */
export type CheckpointListener = (checkpoint: CheckpointRecord) => void;

/** Read-only view of the ledger. Safe to call at any time; never mutates. */
export interface LedgerReader {
  /** base58 digest of checkpoint 0 (Sui's chain identifier). */
  readonly chainId: string;
  /** The seed the ledger was built from. */
  readonly seed: string;

  // Objects
  /** Latest live version, or undefined if the object never existed or no longer exists. */
  getObject(objectId: string): ObjectRecord | undefined;
  /** A specific version (live or historical); undefined if unknown. */
  getObjectAtVersion(objectId: string, version: bigint): ObjectRecord | ObjectTombstone | undefined;
  /** Every version of an object, oldest first (tombstones included). */
  getObjectHistory(objectId: string): readonly (ObjectRecord | ObjectTombstone)[];
  /**
   * Live objects owned by an address (or by an object, for object-owned children), in a node's
   * owner-index order: by type, coins largest first, then by id ({@link ownerIndexKey}).
   */
  listOwnedObjects(owner: string, filter?: OwnedObjectsFilter, page?: PageRequest): Page<ObjectRecord>;
  /** Dynamic fields (`0x2::dynamic_field::Field<K,V>` objects) under a parent object id. */
  listDynamicFields(parentId: string, page?: PageRequest): Page<ObjectRecord>;

  // Coins and balances
  /** Coin objects of one type owned by an address, largest balance first. */
  listCoins(owner: string, coinType: string, page?: PageRequest): Page<ObjectRecord>;
  /** Always returns a record (zero balances when the address holds nothing of that type). */
  getBalance(owner: string, coinType: string): BalanceRecord;
  /** Non-zero balances of an address, ordered by coin type. */
  listBalances(owner: string, page?: PageRequest): Page<BalanceRecord>;
  /** Known coin types (those with and without metadata). */
  listCoinTypes(): readonly CoinTypeRecord[];
  getCoinType(coinType: string): CoinTypeRecord | undefined;

  // Transactions and events
  getTransaction(digest: string): TransactionRecord | undefined;
  listTransactions(filter?: TransactionFilter, page?: PageRequest & { descending?: boolean }): Page<TransactionRecord>;
  listEvents(filter?: EventFilter, page?: PageRequest & { descending?: boolean }): Page<EventRecord>;
  /**
   * Every sealed transaction with its global position (0 = genesis), ascending or descending,
   * starting after `after` (a position from an earlier call). For custom filters and cursors.
   */
  iterateTransactions(options?: { after?: number; descending?: boolean }): Iterable<{ position: number; transaction: TransactionRecord }>;
  /** Every sealed event with its global position, like {@link iterateTransactions}. */
  iterateEvents(options?: { after?: number; descending?: boolean }): Iterable<{ position: number; event: EventRecord }>;

  // Checkpoints
  getCheckpoint(sequenceNumber: bigint): CheckpointRecord | undefined;
  getCheckpointByDigest(digest: string): CheckpointRecord | undefined;
  latestCheckpoint(): CheckpointRecord;
  /** Transactions of a sealed checkpoint in order. */
  checkpointTransactions(sequenceNumber: bigint): readonly TransactionRecord[];
  /** Register for sealed checkpoints; returns the unsubscribe function. */
  onCheckpoint(listener: CheckpointListener): () => void;

  // Epochs and the system
  currentEpoch(): EpochRecord;
  getEpoch(epoch: bigint): EpochRecord | undefined;
  systemState(): SystemStateRecord;
  protocolConfig(): ProtocolConfigRecord;
  referenceGasPrice(): bigint;

  // Packages
  getPackage(packageId: string): MovePackageRecord | undefined;
  /** Every version of the package family `packageId` belongs to, oldest first. */
  listPackageVersions(packageId: string): readonly MovePackageRecord[];

  // Names
  /** By name (`alice.sui`, case-insensitive; `@alice` accepted). Expired records are returned; check expiration. */
  lookupName(name: string): NameRecord | undefined;
  /** The default (reverse) name of an address. */
  reverseLookupName(address: string): NameRecord | undefined;
  listNames(): readonly NameRecord[];

  // Allowances
  getAllowance(objectId: string): AllowanceRecord | undefined;
  /** Allowances where `address` is the funder or the spender. */
  listAllowances(filter?: { funder?: string; spender?: string }): readonly AllowanceRecord[];

  /** The simulated clock (ms): timestamp of the latest sealed checkpoint. */
  nowMs(): bigint;
}
