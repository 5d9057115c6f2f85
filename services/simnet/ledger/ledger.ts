import type { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import type {
  CheckpointListener,
  EventFilter,
  LedgerReader,
  OwnedObjectsFilter,
  Page,
  PageRequest,
  TransactionFilter,
} from './reader.js';
import { addToIndex, decodeCursor, decodeNumberCursor, encodeCursor, iterate, lowerBound, narrowest, pageLimit } from './paging.js';
import { canonicalName, normalizeAddress, normalizeType, typeFilterMatcher } from './normalize.js';
import { encodeCheckpoint } from './checkpoint-encoding.js';
import { baseType } from './object-encoding.js';
import { InvalidCursorError } from './errors.js';
import type {
  AllowanceRecord,
  BalanceRecord,
  CheckpointRecord,
  CoinTypeRecord,
  EpochRecord,
  EventRecord,
  GasCostSummaryRecord,
  MovePackageRecord,
  NameRecord,
  ObjectRecord,
  ObjectTombstone,
  ProtocolConfigRecord,
  SystemStateRecord,
  TransactionRecord,
} from './types.js';

/** A funded genesis account whose key tests can use to sign. */
export interface GenesisAccount {
  readonly address: string;
  readonly keypair: Ed25519Keypair;
  /** e.g. `alice`; also the account's name-service label when it has one. */
  readonly label: string;
}

export interface LedgerOptions {
  /** Seed for every derived value (default `simnet`). */
  readonly seed?: string;
  /** Simulated time between checkpoints (default 250 ms). */
  readonly checkpointIntervalMs?: number;
  /**
   * Moves the genesis time by this much (default 0): another genesis checkpoint, so another
   * chain id, with everything else the seed derives (accounts, objects, epochs) unchanged.
   */
  readonly genesisShiftMs?: number;
}

const ZERO_GAS: GasCostSummaryRecord = { computationCost: 0n, storageCost: 0n, storageRebate: 0n, nonRefundableStorageFee: 0n };

function addGas(a: GasCostSummaryRecord, b: GasCostSummaryRecord): GasCostSummaryRecord {
  return {
    computationCost: a.computationCost + b.computationCost,
    storageCost: a.storageCost + b.storageCost,
    storageRebate: a.storageRebate + b.storageRebate,
    nonRefundableStorageFee: a.nonRefundableStorageFee + b.nonRefundableStorageFee,
  };
}

/**
 * The in-memory chain. Readers implement {@link LedgerReader}; the remaining public methods
 * are the write side used by genesis, the executor, the producer and the faucet.
 */
export class Ledger implements LedgerReader {
  readonly seed: string;
  readonly checkpointIntervalMs: number;
  chainId = '';
  /** Genesis accounts, in a stable order. */
  accounts: readonly GenesisAccount[] = [];
  genesisTimestampMs = 0n;
  #clockOffsetMs = 0n;
  #sealedClockOffsetMs = 0n;

  readonly #objects = new Map<string, (ObjectRecord | ObjectTombstone)[]>();
  readonly #ownedBy = new Map<string, Set<string>>();
  /**
   * Coin objects by owner and coin type: balances and coin listings read this instead of
   * scanning everything an address owns, which grows with every transfer it receives.
   */
  readonly #coinsBy = new Map<string, Map<string, Set<string>>>();
  readonly #addressBalances = new Map<string, Map<string, bigint>>();
  readonly #coinTypes = new Map<string, CoinTypeRecord>();
  readonly #transactions: TransactionRecord[] = [];
  readonly #transactionIndex = new Map<string, number>();
  readonly #events: EventRecord[] = [];
  /** Secondary indexes: key → ascending positions in #transactions / #events. */
  readonly #txIndexes = { sender: new Map<string, number[]>(), address: new Map<string, number[]>(), object: new Map<string, number[]>(), checkpoint: new Map<string, number[]>() };
  readonly #eventIndexes = { sender: new Map<string, number[]>(), type: new Map<string, number[]>(), module: new Map<string, number[]>(), transaction: new Map<string, number[]>(), checkpoint: new Map<string, number[]>() };
  readonly #checkpoints: CheckpointRecord[] = [];
  readonly #checkpointByDigest = new Map<string, CheckpointRecord>();
  readonly #checkpointTransactions = new Map<bigint, TransactionRecord[]>();
  #pending: TransactionRecord[] = [];
  readonly #listeners = new Set<CheckpointListener>();
  readonly #packages = new Map<string, MovePackageRecord>();
  readonly #names = new Map<string, NameRecord>();
  readonly #reverseNames = new Map<string, string>();
  readonly #allowances = new Map<string, AllowanceRecord>();
  readonly #epochs: EpochRecord[] = [];
  #systemState!: SystemStateRecord;
  #protocolConfig!: ProtocolConfigRecord;
  #rollingGas: GasCostSummaryRecord = ZERO_GAS;

  constructor(options: LedgerOptions = {}) {
    this.seed = options.seed ?? 'simnet';
    this.checkpointIntervalMs = options.checkpointIntervalMs ?? 250;
  }

  // ---------------------------------------------------------------- objects

  getObject(objectId: string): ObjectRecord | undefined {
    return this.#latest(normalizeAddress(objectId));
  }

  /** The live version of an object by its normalized id. */
  #latest(objectId: string): ObjectRecord | undefined {
    const history = this.#objects.get(objectId);
    const latest = history?.[history.length - 1];
    return latest && !('deleted' in latest) ? latest : undefined;
  }

  getObjectAtVersion(objectId: string, version: bigint): ObjectRecord | ObjectTombstone | undefined {
    return this.#objects.get(normalizeAddress(objectId))?.find((record) => record.version === version);
  }

  getObjectHistory(objectId: string): readonly (ObjectRecord | ObjectTombstone)[] {
    return this.#objects.get(normalizeAddress(objectId)) ?? [];
  }

  listOwnedObjects(owner: string, filter: OwnedObjectsFilter = {}, page?: PageRequest): Page<ObjectRecord> {
    const ownerAddress = normalizeAddress(owner);
    const typeFilter = filter.type ? normalizeType(filter.type) : undefined;
    const exact = typeFilter?.includes('<') ?? false;
    const after = decodeOwnerIndexCursor(page?.cursor);
    const limit = pageLimit(page);
    const owned: { object: ObjectRecord; key: OwnerIndexKey }[] = [];
    for (const id of this.#ownedBy.get(ownerAddress) ?? []) {
      const object = this.getObject(id);
      if (!object) continue;
      if (typeFilter && (exact ? object.type !== typeFilter : object.type === 'package' || baseType(object.type) !== typeFilter)) continue;
      const key = ownerIndexKey(object);
      if (after === undefined || compareOwnerIndexKeys(key, after) > 0) owned.push({ object, key });
    }
    owned.sort((a, b) => compareOwnerIndexKeys(a.key, b.key));
    if (owned.length <= limit) return { items: owned.map((entry) => entry.object) };
    const items = owned.slice(0, limit);
    return { items: items.map((entry) => entry.object), nextCursor: encodeCursor('owned', JSON.stringify(items[items.length - 1]!.key)) };
  }

  listDynamicFields(parentId: string, page?: PageRequest): Page<ObjectRecord> {
    const parent = normalizeAddress(parentId);
    const after = decodeCursor('dynamic', page?.cursor);
    const limit = pageLimit(page);
    const ids = [...(this.#ownedBy.get(parent) ?? [])].sort();
    const items: ObjectRecord[] = [];
    for (const id of ids) {
      if (after !== undefined && id <= after) continue;
      const object = this.getObject(id);
      if (!object?.dynamicField) continue;
      if (items.length === limit) return { items, nextCursor: encodeCursor('dynamic', items[items.length - 1]!.objectId) };
      items.push(object);
    }
    return { items };
  }

  // ---------------------------------------------------------------- coins and balances

  #coinObjects(owner: string, coinType: string): ObjectRecord[] {
    const coins: ObjectRecord[] = [];
    for (const id of this.#coinsBy.get(owner)?.get(coinType) ?? []) {
      const object = this.#latest(id);
      if (object) coins.push(object);
    }
    return coins;
  }

  listCoins(owner: string, coinType: string, page?: PageRequest): Page<ObjectRecord> {
    // Largest first, as a node lists them (ties by id, so pages are stable).
    const coins = this.#coinObjects(normalizeAddress(owner), normalizeType(coinType)).sort((a, b) =>
      a.coin!.balance === b.coin!.balance ? (a.objectId < b.objectId ? -1 : 1) : a.coin!.balance > b.coin!.balance ? -1 : 1,
    );
    const start = decodeNumberCursor('coins', page?.cursor) ?? 0;
    const limit = pageLimit(page);
    const items = coins.slice(start, start + limit);
    return start + limit < coins.length ? { items, nextCursor: encodeCursor('coins', String(start + limit)) } : { items };
  }

  getBalance(owner: string, coinType: string): BalanceRecord {
    const address = normalizeAddress(owner);
    const type = normalizeType(coinType);
    const coins = this.#coinObjects(address, type);
    const coinBalance = coins.reduce((sum, coin) => sum + coin.coin!.balance, 0n);
    const addressBalance = this.#addressBalances.get(address)?.get(type) ?? 0n;
    return { owner: address, coinType: type, coinBalance, addressBalance, balance: coinBalance + addressBalance, coinObjectCount: coins.length };
  }

  listBalances(owner: string, page?: PageRequest): Page<BalanceRecord> {
    const address = normalizeAddress(owner);
    const types = new Set<string>(this.#addressBalances.get(address)?.keys() ?? []);
    for (const [coinType, ids] of this.#coinsBy.get(address) ?? []) if (ids.size > 0) types.add(coinType);
    const after = decodeCursor('balances', page?.cursor);
    const limit = pageLimit(page);
    const items: BalanceRecord[] = [];
    for (const type of [...types].sort()) {
      if (after !== undefined && type <= after) continue;
      const balance = this.getBalance(address, type);
      if (balance.balance === 0n && balance.coinObjectCount === 0) continue;
      if (items.length === limit) return { items, nextCursor: encodeCursor('balances', items[items.length - 1]!.coinType) };
      items.push(balance);
    }
    return { items };
  }

  listCoinTypes(): readonly CoinTypeRecord[] {
    return [...this.#coinTypes.values()];
  }

  getCoinType(coinType: string): CoinTypeRecord | undefined {
    return this.#coinTypes.get(normalizeType(coinType));
  }

  // ---------------------------------------------------------------- transactions and events

  getTransaction(digest: string): TransactionRecord | undefined {
    const index = this.#transactionIndex.get(digest);
    return index === undefined ? undefined : this.#transactions[index];
  }

  listTransactions(filter: TransactionFilter = {}, page: PageRequest & { descending?: boolean } = {}): Page<TransactionRecord> {
    const sender = filter.sender ? normalizeAddress(filter.sender) : undefined;
    const affectedAddress = filter.affectedAddress ? normalizeAddress(filter.affectedAddress) : undefined;
    const affectedObject = filter.affectedObject ? normalizeAddress(filter.affectedObject) : undefined;
    const sealedOnly = filter.sealedOnly ?? true;
    const matches = (tx: TransactionRecord) =>
      (!sealedOnly || tx.checkpoint !== undefined) &&
      (sender === undefined || tx.sender === sender) &&
      (affectedAddress === undefined || tx.affectedAddresses.includes(affectedAddress)) &&
      (affectedObject === undefined || tx.affectedObjects.includes(affectedObject)) &&
      (filter.checkpoint === undefined || tx.checkpoint === filter.checkpoint);
    const indexes = this.#txIndexes;
    const candidates = narrowest([
      sender !== undefined ? (indexes.sender.get(sender) ?? []) : undefined,
      affectedAddress !== undefined ? (indexes.address.get(affectedAddress) ?? []) : undefined,
      affectedObject !== undefined ? (indexes.object.get(affectedObject) ?? []) : undefined,
      filter.checkpoint !== undefined ? (indexes.checkpoint.get(String(filter.checkpoint)) ?? []) : undefined,
    ]);
    return this.#scan('tx', this.#transactions, matches, page, candidates);
  }

  listEvents(filter: EventFilter = {}, page: PageRequest & { descending?: boolean } = {}): Page<EventRecord> {
    const sender = filter.sender ? normalizeAddress(filter.sender) : undefined;
    const emitting = filter.emittingModule?.split('::');
    const emittingPackage = emitting?.[0] ? normalizeAddress(emitting[0]) : undefined;
    const typeMatches = filter.type === undefined ? undefined : typeFilterMatcher(filter.type);
    const matches = (event: EventRecord) =>
      event.checkpoint !== undefined &&
      (sender === undefined || event.sender === sender) &&
      (filter.transactionDigest === undefined || event.transactionDigest === filter.transactionDigest) &&
      (filter.checkpoint === undefined || event.checkpoint === filter.checkpoint) &&
      (typeMatches === undefined || typeMatches(event.type)) &&
      (emitting === undefined || (event.packageId === emittingPackage && event.module === emitting[1]));
    const indexes = this.#eventIndexes;
    const typeParts = filter.type?.split('::');
    const candidates = narrowest([
      sender !== undefined ? (indexes.sender.get(sender) ?? []) : undefined,
      filter.transactionDigest !== undefined ? (indexes.transaction.get(filter.transactionDigest) ?? []) : undefined,
      filter.checkpoint !== undefined ? (indexes.checkpoint.get(String(filter.checkpoint)) ?? []) : undefined,
      emitting !== undefined && emitting[1] !== undefined ? (indexes.module.get(`${emittingPackage}::${emitting[1]}`) ?? []) : undefined,
      typeParts !== undefined && typeParts.length >= 3 ? (indexes.type.get(baseType(normalizeType(filter.type!))) ?? []) : undefined,
    ]);
    return this.#scan('event', this.#events, matches, page, candidates);
  }

  *iterateTransactions(options: { after?: number; descending?: boolean } = {}): Iterable<{ position: number; transaction: TransactionRecord }> {
    for (const { position, item } of iterate(this.#transactions, options)) {
      if (item.checkpoint === undefined) continue;
      yield { position, transaction: item };
    }
  }

  *iterateEvents(options: { after?: number; descending?: boolean } = {}): Iterable<{ position: number; event: EventRecord }> {
    for (const { position, item } of iterate(this.#events, options)) {
      if (item.checkpoint === undefined) continue;
      yield { position, event: item };
    }
  }

  /** Pages through `items` (or only the `candidates` positions from an index) after the cursor. */
  #scan<T>(kind: string, items: readonly T[], matches: (item: T) => boolean, page: PageRequest & { descending?: boolean }, candidates?: readonly number[]): Page<T> {
    const limit = pageLimit(page);
    const cursor = decodeNumberCursor(kind, page.cursor);
    const out: T[] = [];
    const length = candidates?.length ?? items.length;
    const at = (index: number) => (candidates ? candidates[index]! : index);
    const step = page.descending ? -1 : 1;
    let index: number;
    if (cursor === undefined) index = page.descending ? length - 1 : 0;
    else {
      // First candidate strictly after (or before, descending) the cursor position.
      index = page.descending ? lowerBound(length, at, cursor) - 1 : lowerBound(length, at, cursor + 1);
    }
    for (; index >= 0 && index < length; index += step) {
      const position = at(index);
      const item = items[position]!;
      if (!matches(item)) continue;
      if (out.length === limit) return { items: out, nextCursor: encodeCursor(kind, String(at(index - step))) };
      out.push(item);
    }
    return { items: out };
  }

  // ---------------------------------------------------------------- checkpoints

  getCheckpoint(sequenceNumber: bigint): CheckpointRecord | undefined {
    return sequenceNumber < 0n ? undefined : this.#checkpoints[Number(sequenceNumber)];
  }

  getCheckpointByDigest(digest: string): CheckpointRecord | undefined {
    return this.#checkpointByDigest.get(digest);
  }

  latestCheckpoint(): CheckpointRecord {
    return this.#checkpoints[this.#checkpoints.length - 1]!;
  }

  checkpointTransactions(sequenceNumber: bigint): readonly TransactionRecord[] {
    return this.#checkpointTransactions.get(sequenceNumber) ?? [];
  }

  onCheckpoint(listener: CheckpointListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  // ---------------------------------------------------------------- epochs and system

  currentEpoch(): EpochRecord {
    return this.#epochs[this.#epochs.length - 1]!;
  }

  getEpoch(epoch: bigint): EpochRecord | undefined {
    return this.#epochs.find((record) => record.epoch === epoch);
  }

  systemState(): SystemStateRecord {
    return this.#systemState;
  }

  protocolConfig(): ProtocolConfigRecord {
    return this.#protocolConfig;
  }

  referenceGasPrice(): bigint {
    return this.#systemState.referenceGasPrice;
  }

  nowMs(): bigint {
    const latest = this.#checkpoints[this.#checkpoints.length - 1];
    return (latest?.timestampMs ?? this.genesisTimestampMs) + this.#clockOffsetMs - this.#sealedClockOffsetMs;
  }

  /**
   * Moves the chain's clock forward (never back): what executing code reads at once, and every
   * later checkpoint's timestamp. Lets a test run months of billing periods in milliseconds.
   */
  advanceClock(ms: bigint): void {
    if (ms < 0n) throw new RangeError('the chain clock only moves forward');
    this.#clockOffsetMs += ms;
  }

  // ---------------------------------------------------------------- packages, names, allowances

  getPackage(packageId: string): MovePackageRecord | undefined {
    return this.#packages.get(normalizeAddress(packageId));
  }

  listPackageVersions(packageId: string): readonly MovePackageRecord[] {
    const pkg = this.getPackage(packageId);
    if (!pkg) return [];
    return [...this.#packages.values()].filter((candidate) => candidate.originalId === pkg.originalId).sort((a, b) => (a.version < b.version ? -1 : 1));
  }

  lookupName(name: string): NameRecord | undefined {
    return this.#names.get(canonicalName(name));
  }

  reverseLookupName(address: string): NameRecord | undefined {
    const name = this.#reverseNames.get(normalizeAddress(address));
    return name === undefined ? undefined : this.#names.get(name);
  }

  listNames(): readonly NameRecord[] {
    return [...this.#names.values()];
  }

  getAllowance(objectId: string): AllowanceRecord | undefined {
    return this.#allowances.get(normalizeAddress(objectId));
  }

  listAllowances(filter: { funder?: string; spender?: string } = {}): readonly AllowanceRecord[] {
    const funder = filter.funder ? normalizeAddress(filter.funder) : undefined;
    const spender = filter.spender ? normalizeAddress(filter.spender) : undefined;
    return [...this.#allowances.values()].filter(
      (allowance) => (funder === undefined || allowance.funder === funder) && (spender === undefined || allowance.spender === spender),
    );
  }

  // ================================================================ write side

  /** Writes a new object version (creation or mutation) and maintains the owner index. */
  putObject(record: ObjectRecord): void {
    const history = this.#objects.get(record.objectId) ?? [];
    const previous = history[history.length - 1];
    if (previous && !('deleted' in previous)) this.#unindexOwner(previous);
    history.push(record);
    this.#objects.set(record.objectId, history);
    if (record.owner.kind === 'address' || record.owner.kind === 'object') {
      const owned = this.#ownedBy.get(record.owner.address) ?? new Set<string>();
      owned.add(record.objectId);
      this.#ownedBy.set(record.owner.address, owned);
      if (record.coin) {
        const byType = this.#coinsBy.get(record.owner.address) ?? new Map<string, Set<string>>();
        const coins = byType.get(record.coin.coinType) ?? new Set<string>();
        coins.add(record.objectId);
        byType.set(record.coin.coinType, coins);
        this.#coinsBy.set(record.owner.address, byType);
      }
    }
    if (record.package) this.#packages.set(record.objectId, record.package);
  }

  /** Marks an object deleted (or wrapped) at `version`. */
  deleteObject(objectId: string, version: bigint, previousTransaction: string): void {
    const history = this.#objects.get(objectId);
    const previous = history?.[history.length - 1];
    if (!history || !previous || 'deleted' in previous) return;
    this.#unindexOwner(previous);
    history.push({ objectId, version, deleted: true, previousTransaction });
  }

  #unindexOwner(record: ObjectRecord): void {
    if (record.owner.kind === 'address' || record.owner.kind === 'object') {
      this.#ownedBy.get(record.owner.address)?.delete(record.objectId);
      if (record.coin) this.#coinsBy.get(record.owner.address)?.get(record.coin.coinType)?.delete(record.objectId);
    }
  }

  /** Adds `delta` (may be negative) to an address balance; throws if it would go negative. */
  adjustAddressBalance(owner: string, coinType: string, delta: bigint): void {
    const balances = this.#addressBalances.get(owner) ?? new Map<string, bigint>();
    const next = (balances.get(coinType) ?? 0n) + delta;
    if (next < 0n) throw new Error(`address balance of ${owner} in ${coinType} would go negative`);
    balances.set(coinType, next);
    this.#addressBalances.set(owner, balances);
  }

  registerCoinType(record: CoinTypeRecord): void {
    this.#coinTypes.set(record.coinType, record);
  }

  registerName(record: NameRecord, isDefaultFor?: string): void {
    this.#names.set(canonicalName(record.name), record);
    if (isDefaultFor) this.#reverseNames.set(isDefaultFor, canonicalName(record.name));
  }

  putAllowance(record: AllowanceRecord): void {
    this.#allowances.set(record.objectId, record);
  }

  setSystem(state: SystemStateRecord, protocolConfig: ProtocolConfigRecord, epochs: readonly EpochRecord[]): void {
    this.#systemState = state;
    this.#protocolConfig = protocolConfig;
    this.#epochs.splice(0, this.#epochs.length, ...epochs);
  }

  /** Records an executed transaction; it is sealed into the next checkpoint. */
  addTransaction(record: TransactionRecord): void {
    if (this.#transactionIndex.has(record.digest)) throw new Error(`duplicate transaction ${record.digest}`);
    const position = this.#transactions.length;
    this.#transactionIndex.set(record.digest, position);
    this.#transactions.push(record);
    const tx = this.#txIndexes;
    addToIndex(tx.sender, record.sender, position);
    for (const address of record.affectedAddresses) addToIndex(tx.address, address, position);
    for (const id of new Set(record.affectedObjects)) addToIndex(tx.object, id, position);
    for (const event of record.events) {
      const eventPosition = this.#events.length;
      this.#events.push(event);
      const events = this.#eventIndexes;
      addToIndex(events.sender, event.sender, eventPosition);
      addToIndex(events.type, baseType(event.type), eventPosition);
      addToIndex(events.module, `${event.packageId}::${event.module}`, eventPosition);
      addToIndex(events.transaction, record.digest, eventPosition);
    }
    this.#pending.push(record);
  }

  /**
   * Seals every pending transaction into the next checkpoint (possibly empty, as real
   * checkpoints can be) and notifies listeners. Timestamp = genesis time + n × interval, plus
   * however far `advanceClock` has moved the chain's clock.
   */
  sealCheckpoint(): CheckpointRecord {
    const sequenceNumber = BigInt(this.#checkpoints.length);
    const previous = this.#checkpoints[this.#checkpoints.length - 1];
    const transactions = this.#pending;
    this.#pending = [];
    const timestampMs = this.genesisTimestampMs + sequenceNumber * BigInt(this.checkpointIntervalMs) + this.#clockOffsetMs;
    this.#sealedClockOffsetMs = this.#clockOffsetMs;
    for (const tx of transactions) this.#rollingGas = addGas(this.#rollingGas, tx.effects.gasUsed);
    const networkTotalTransactions = (previous?.networkTotalTransactions ?? 0n) + BigInt(transactions.length);
    const epoch = this.currentEpoch().epoch;
    const encoded = encodeCheckpoint({
      epoch,
      sequenceNumber,
      networkTotalTransactions,
      previousDigest: previous?.digest,
      timestampMs,
      rollingGas: this.#rollingGas,
      transactions: transactions.map((tx) => ({
        digest: tx.digest,
        effectsDigest: tx.effects.digest,
        signatures: tx.signatures.map((signature) => signature.bytes),
      })),
    });
    const checkpoint: CheckpointRecord = {
      sequenceNumber,
      digest: encoded.digest,
      previousDigest: previous?.digest,
      epoch,
      timestampMs,
      networkTotalTransactions,
      contentDigest: encoded.contentDigest,
      transactionDigests: transactions.map((tx) => tx.digest),
      epochRollingGasCostSummary: this.#rollingGas,
      summaryBcs: encoded.summaryBcs,
      contentsBcs: encoded.contentsBcs,
    };
    for (const tx of transactions) {
      tx.checkpoint = sequenceNumber;
      tx.timestampMs = timestampMs;
      addToIndex(this.#txIndexes.checkpoint, String(sequenceNumber), this.#transactionIndex.get(tx.digest)!);
      for (const eventPosition of this.#eventIndexes.transaction.get(tx.digest) ?? []) addToIndex(this.#eventIndexes.checkpoint, String(sequenceNumber), eventPosition);
      for (const event of tx.events) {
        event.checkpoint = sequenceNumber;
        event.timestampMs = timestampMs;
      }
    }
    this.#checkpoints.push(checkpoint);
    this.#checkpointByDigest.set(checkpoint.digest, checkpoint);
    this.#checkpointTransactions.set(sequenceNumber, transactions);
    if (sequenceNumber === 0n) this.chainId = checkpoint.digest;
    for (const listener of [...this.#listeners]) listener(checkpoint);
    return checkpoint;
  }
}

/**
 * The order a node lists an owner's objects in: Sui's owner index (`OwnerIndexKey` of
 * sui-core's rpc_index.rs, which serves v2 ListOwnedObjects) is keyed by owner, object type,
 * the coin's balance inverted (`!balance`, so coins come largest first, "in order to force
 * sorting of coins to be from greatest to least") and object id. The SDK's gas selection takes
 * the first page of the owner's SUI coins, so an order by id alone left the largest coin off
 * that page once an address held more than a page of coins. Types compare as their normalized
 * strings here (a node compares the encoded struct tag; what matters to clients is that one
 * type's objects are together and its coins largest first); objects that are not coins sort
 * before coins of the same type, as Rust's `None < Some`.
 */
export type OwnerIndexKey = readonly [type: string, invertedBalance: string, objectId: string];

const U64_MAX = 2n ** 64n - 1n;

export function ownerIndexKey(object: ObjectRecord): OwnerIndexKey {
  const inverted = object.coin ? (U64_MAX - object.coin.balance).toString().padStart(20, '0') : '';
  return [object.type, inverted, object.objectId];
}

export function compareOwnerIndexKeys(a: OwnerIndexKey, b: OwnerIndexKey): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return 0;
}

function decodeOwnerIndexCursor(cursor: string | undefined): OwnerIndexKey | undefined {
  const value = decodeCursor('owned', cursor);
  if (value === undefined) return undefined;
  let key: unknown;
  try {
    key = JSON.parse(value);
  } catch {
    throw new InvalidCursorError('invalid page token');
  }
  if (!Array.isArray(key) || key.length !== 3 || !key.every((part) => typeof part === 'string')) throw new InvalidCursorError('invalid page token');
  return key as unknown as OwnerIndexKey;
}
