/**
 * Records held by the simnet ledger. Addresses and object ids are always normalized
 * (`0x` + 64 lowercase hex), type strings always carry full 64-hex addresses, digests are
 * base58, amounts are bigint.
 */

/** Who owns an object version (mirrors Sui's `Owner`). */
export type ObjectOwner =
  | { readonly kind: 'address'; readonly address: string }
  | { readonly kind: 'object'; readonly address: string }
  | { readonly kind: 'shared'; readonly initialSharedVersion: bigint }
  | { readonly kind: 'immutable' };

/** JSON as rendered by the node for `json` fields (u64 and larger travel as decimal strings). */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** One version of one object. Versions are immutable once written. */
export interface ObjectRecord {
  readonly objectId: string;
  readonly version: bigint;
  /** base58 blake2b-256 of `Object::` ‖ BCS(Object). */
  readonly digest: string;
  /** Struct tag with full addresses, or `package` for Move packages. */
  readonly type: string;
  readonly owner: ObjectOwner;
  readonly previousTransaction: string;
  readonly storageRebate: bigint;
  readonly hasPublicTransfer: boolean;
  /** BCS of the Move struct (empty for packages). */
  readonly contents: Uint8Array;
  /** BCS of the whole `Object` (what `bcs` in the gRPC API returns). */
  readonly bcs: Uint8Array;
  /** The struct as JSON (what the node's `json` field renders). */
  readonly json: JsonValue;
  /** Set for `0x2::coin::Coin<T>` objects. */
  readonly coin?: { readonly coinType: string; readonly balance: bigint };
  /** Rendered Display fields (from the type's `Display<T>`), when the type has one. */
  readonly display?: Readonly<Record<string, string>>;
  /** Set for package objects. */
  readonly package?: MovePackageRecord;
  /** Set for dynamic fields (`0x2::dynamic_field::Field<K, V>`). */
  readonly dynamicField?: DynamicFieldInfo;
}

/** A version that no longer exists (deleted or wrapped) at `version`. */
export interface ObjectTombstone {
  readonly objectId: string;
  readonly version: bigint;
  readonly deleted: true;
  readonly previousTransaction: string;
}

export interface DynamicFieldInfo {
  readonly parent: string;
  readonly nameType: string;
  readonly nameBcs: Uint8Array;
  readonly nameJson: JsonValue;
  readonly valueType: string;
  readonly kind: 'field' | 'object';
}

/** A Move package with its modules' public interface (no real bytecode, see README). */
export interface MovePackageRecord {
  readonly packageId: string;
  readonly version: bigint;
  /** The first version's id (same as `packageId` for version 1). */
  readonly originalId: string;
  readonly modules: readonly MoveModuleRecord[];
}

export interface MoveModuleRecord {
  readonly name: string;
  readonly datatypes: readonly MoveDatatypeRecord[];
  readonly functions: readonly MoveFunctionRecord[];
}

export type MoveAbility = 'copy' | 'drop' | 'store' | 'key';

export interface MoveDatatypeRecord {
  readonly name: string;
  readonly kind: 'struct' | 'enum';
  readonly abilities: readonly MoveAbility[];
  readonly typeParameters: readonly { readonly constraints: readonly MoveAbility[]; readonly isPhantom: boolean }[];
  /** Struct fields (for enums: the fields of each variant, keyed by variant name). */
  readonly fields: readonly { readonly name: string; readonly type: string }[];
  readonly variants?: readonly { readonly name: string; readonly fields: readonly { readonly name: string; readonly type: string }[] }[];
}

export interface MoveFunctionRecord {
  readonly name: string;
  readonly visibility: 'public' | 'private' | 'friend';
  readonly isEntry: boolean;
  readonly typeParameters: readonly { readonly constraints: readonly MoveAbility[] }[];
  /** Signature strings, e.g. `&mut 0x…2::coin::Coin<T0>`, `u64`, `T0`. */
  readonly parameters: readonly string[];
  readonly returns: readonly string[];
}

/** A coin type and its metadata (metadata absent for coin types registered without it). */
export interface CoinTypeRecord {
  readonly coinType: string;
  readonly metadata?: {
    readonly objectId: string;
    readonly decimals: number;
    readonly name: string;
    readonly symbol: string;
    readonly description: string;
    readonly iconUrl?: string;
  };
  readonly treasuryCapId?: string;
  readonly totalSupply: bigint;
}

/** Balance of one coin type at one address: coin objects plus the address balance. */
export interface BalanceRecord {
  readonly owner: string;
  readonly coinType: string;
  /** Sum of owned `Coin<T>` objects. */
  readonly coinBalance: bigint;
  /** Funds held directly at the address (Sui address balances / accumulators). */
  readonly addressBalance: bigint;
  readonly balance: bigint;
  readonly coinObjectCount: number;
}

export interface EventRecord {
  readonly transactionDigest: string;
  readonly eventIndex: number;
  readonly packageId: string;
  readonly module: string;
  readonly sender: string;
  /** Full struct tag, possibly generic, e.g. `0x…::pool::SwapEvent<0x…2::sui::SUI, 0x…::usdc::USDC>`. */
  readonly type: string;
  readonly contents: Uint8Array;
  readonly json: JsonValue;
  /** Set once the transaction's checkpoint is sealed. */
  checkpoint?: bigint;
  timestampMs?: bigint;
}

export interface BalanceChangeRecord {
  readonly address: string;
  readonly coinType: string;
  /** Signed amount. */
  readonly amount: bigint;
}

export type IdOperation = 'none' | 'created' | 'deleted';

/** One entry of `effects.changed_objects`. */
export interface ObjectChangeRecord {
  readonly objectId: string;
  readonly objectType?: string;
  readonly input?: { readonly version: bigint; readonly digest: string; readonly owner: ObjectOwner };
  /** Absent when the object no longer exists after the transaction (deleted or wrapped). */
  readonly output?: { readonly version: bigint; readonly digest: string; readonly owner: ObjectOwner };
  readonly idOperation: IdOperation;
  /** Set for package writes. */
  readonly isPackage?: boolean;
}

export interface GasCostSummaryRecord {
  readonly computationCost: bigint;
  readonly storageCost: bigint;
  readonly storageRebate: bigint;
  readonly nonRefundableStorageFee: bigint;
}

export type ExecutionFailure = {
  readonly kind: 'moveAbort' | 'insufficientGas' | 'insufficientCoinBalance' | 'invalidGasObject' | 'commandArgumentError' | 'featureNotYetSupported' | 'functionNotFound' | 'insufficientFundsForWithdraw';
  readonly description: string;
  readonly command?: number;
  /** For `moveAbort`: where and with which code. */
  readonly abort?: { readonly packageId: string; readonly module: string; readonly functionName: string; readonly code: bigint };
  /** For `commandArgumentError`. */
  readonly argument?: number;
};

export interface EffectsRecord {
  readonly status: { readonly success: true } | { readonly success: false; readonly failure: ExecutionFailure };
  readonly epoch: bigint;
  readonly gasUsed: GasCostSummaryRecord;
  readonly transactionDigest: string;
  /** Object id of the gas coin (absent when gas came from an address balance or for system transactions). */
  readonly gasObjectId?: string;
  readonly eventsDigest?: string;
  readonly dependencies: readonly string[];
  readonly lamportVersion: bigint;
  readonly changedObjects: readonly ObjectChangeRecord[];
  /** BCS of `TransactionEffects::V2`. */
  readonly bcs: Uint8Array;
  readonly digest: string;
}

/** A signature as submitted (BCS of the `GenericSignature`, i.e. flag ‖ sig ‖ pk for simple schemes). */
export interface SignatureRecord {
  readonly bytes: Uint8Array;
  readonly scheme: 'ed25519' | 'secp256k1' | 'secp256r1' | 'multisig' | 'zklogin' | 'passkey';
}

export interface TransactionRecord {
  readonly digest: string;
  /** BCS of `TransactionData`. */
  readonly bcs: Uint8Array;
  readonly sender: string;
  readonly gasOwner: string;
  readonly gasPayment: readonly { readonly objectId: string; readonly version: bigint; readonly digest: string }[];
  readonly gasPrice: bigint;
  readonly gasBudget: bigint;
  /** `system` for genesis / epoch-change style transactions. */
  readonly kind: 'programmable' | 'genesis';
  readonly signatures: readonly SignatureRecord[];
  readonly effects: EffectsRecord;
  readonly events: readonly EventRecord[];
  readonly balanceChanges: readonly BalanceChangeRecord[];
  /** Every address whose objects or balances the transaction touched (sender included). */
  readonly affectedAddresses: readonly string[];
  /** Every object id in `effects.changedObjects` plus read-only inputs. */
  readonly affectedObjects: readonly string[];
  /** Move calls of a programmable transaction (for `moveCall` filters). */
  readonly moveCalls?: readonly { readonly package: string; readonly module: string; readonly function: string }[];
  /** Set when sealed into a checkpoint. */
  checkpoint?: bigint;
  timestampMs?: bigint;
}

export interface CheckpointRecord {
  readonly sequenceNumber: bigint;
  readonly digest: string;
  readonly previousDigest?: string;
  readonly epoch: bigint;
  readonly timestampMs: bigint;
  readonly networkTotalTransactions: bigint;
  readonly contentDigest: string;
  readonly transactionDigests: readonly string[];
  readonly epochRollingGasCostSummary: GasCostSummaryRecord;
  /** BCS of `CheckpointSummary`. */
  readonly summaryBcs: Uint8Array;
  /** BCS of `CheckpointContents`. */
  readonly contentsBcs: Uint8Array;
}

export interface ExchangeRateRecord {
  readonly epoch: bigint;
  readonly suiAmount: bigint;
  readonly poolTokenAmount: bigint;
}

export interface ValidatorRecord {
  readonly address: string;
  readonly name: string;
  readonly description: string;
  readonly imageUrl: string;
  readonly projectUrl: string;
  readonly networkAddress: string;
  readonly protocolPublicKey: Uint8Array;
  readonly networkPublicKey: Uint8Array;
  readonly workerPublicKey: Uint8Array;
  readonly proofOfPossession: Uint8Array;
  readonly votingPower: bigint;
  readonly gasPrice: bigint;
  /** Basis points (100 = 1%). */
  readonly commissionRate: bigint;
  readonly stakingPoolId: string;
  readonly operationCapId: string;
  readonly exchangeRatesId: string;
  readonly stakingPoolSuiBalance: bigint;
  readonly rewardsPool: bigint;
  readonly poolTokenBalance: bigint;
  readonly activationEpoch: bigint;
  /** Oldest first; one per epoch up to the current one. */
  readonly exchangeRates: readonly ExchangeRateRecord[];
}

export interface EpochRecord {
  readonly epoch: bigint;
  readonly startTimestampMs: bigint;
  /** Set for finished epochs. */
  readonly endTimestampMs?: bigint;
  /** First checkpoint of the epoch on this chain (undefined for epochs before the simnet's genesis). */
  readonly firstCheckpoint?: bigint;
  readonly lastCheckpoint?: bigint;
  readonly referenceGasPrice: bigint;
  readonly protocolVersion: bigint;
}

export interface SystemStateRecord {
  readonly version: bigint;
  readonly epoch: bigint;
  readonly protocolVersion: bigint;
  readonly referenceGasPrice: bigint;
  readonly epochStartTimestampMs: bigint;
  readonly epochDurationMs: bigint;
  readonly safeMode: boolean;
  readonly storageFundTotalObjectStorageRebates: bigint;
  readonly storageFundNonRefundableBalance: bigint;
  readonly stakeSubsidyBalance: bigint;
  readonly stakeSubsidyDistributionCounter: bigint;
  readonly stakeSubsidyCurrentDistributionAmount: bigint;
  readonly stakeSubsidyPeriodLength: bigint;
  readonly stakeSubsidyDecreaseRate: number;
  readonly stakeSubsidyStartEpoch: bigint;
  readonly maxValidatorCount: bigint;
  readonly minValidatorCount: bigint;
  readonly minValidatorJoiningStake: bigint;
  readonly validatorLowStakeThreshold: bigint;
  readonly validatorVeryLowStakeThreshold: bigint;
  readonly validatorLowStakeGracePeriod: bigint;
  readonly totalStake: bigint;
  readonly validators: readonly ValidatorRecord[];
}

/** A SuiNS-like record. */
export interface NameRecord {
  /** e.g. `alice.sui`. */
  readonly name: string;
  readonly targetAddress?: string;
  readonly expirationTimestampMs: bigint;
  readonly nftId: string;
  readonly registryId: string;
  readonly avatar?: string;
  readonly contentHash?: string;
}

/** An `0x2::allowance::Allowance<Balance<T>>`-like shared object (see README for the layout). */
export interface AllowanceRecord {
  readonly objectId: string;
  readonly coinType: string;
  readonly funder: string;
  readonly spender?: string;
  /** App type the allowance is bound to, if any. */
  readonly app?: string;
  readonly lifetimeCap: bigint;
  readonly lifetimeSpent: bigint;
  /** Rate limit per calendar month (UTC); 0 = none. */
  readonly monthlyLimit: bigint;
  /** `YYYYMM` of the month `monthSpent` refers to. */
  readonly month: number;
  readonly monthSpent: bigint;
  readonly expirationTimestampMs?: bigint;
  /** What the funder named it (the billing app names an allowance for the organization); '' if unnamed. */
  readonly name: string;
  /** No spend before this time (0: from issue). */
  readonly startMs: bigint;
  /**
   * 1: the limit applies per calendar month (UTC); 12: per 12-month window anchored on the first
   * spend (annual plans), `windowStartMs` being that window's start (0 before any spend).
   */
  readonly windowMonths: 1 | 12;
  readonly windowStartMs: bigint;
  /** Revoked by its cap: the object is gone, the record stays for the ledger's read API. */
  readonly revoked?: true;
}

export interface ProtocolConfigRecord {
  readonly protocolVersion: bigint;
  readonly featureFlags: Readonly<Record<string, boolean>>;
  readonly attributes: Readonly<Record<string, string>>;
}
