import { z } from 'zod';
import { fromBase58, normalizeStructTag, parseStructTag } from '@mysten/sui/utils';

type StructTag = ReturnType<typeof parseStructTag>;
import { ADDRESS_PATTERN } from '../core/index.js';
import { examples } from './examples.js';

/** Patterns of the spec. */
export const DIGEST_PATTERN = /^[1-9A-HJ-NP-Za-km-z]+$/;
/**
 * Names (SuiNS): dot-separated labels, each 1 to 63 letters, digits or hyphens, not starting or
 * ending with a hyphen; a trailing `.sui` is accepted. At most 235 characters in all.
 */
export const NAME_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;
export const NAME_MAX_LENGTH = 235;
export const name = z.string().min(1).max(NAME_MAX_LENGTH).regex(NAME_PATTERN);

/** The largest u64, the node's type for sequence numbers, versions, amounts. */
export const U64_MAX = 18446744073709551615n;

/** Whether a string is base58 of exactly 32 bytes (a Sui digest), whatever its characters. */
export function isDigest32(value: string): boolean {
  if (value.length < 32 || value.length > 44 || !DIGEST_PATTERN.test(value)) return false;
  try {
    return fromBase58(value).length === 32;
  } catch {
    return false;
  }
}

const MOVE_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MOVE_PRIMITIVES = new Set(['bool', 'u8', 'u16', 'u32', 'u64', 'u128', 'u256', 'address', 'signer']);

function isMoveType(type: string | StructTag, depth: number): boolean {
  if (depth > 8) return false;
  if (typeof type !== 'string') {
    return /^0x[0-9a-f]{64}$/.test(type.address) && MOVE_IDENTIFIER.test(type.module) && MOVE_IDENTIFIER.test(type.name)
      && type.typeParams.every((param) => isMoveType(param, depth + 1));
  }
  if (MOVE_PRIMITIVES.has(type)) return true;
  const vector = /^vector<(.+)>$/.exec(type);
  if (vector) return isMoveType(vector[1]!, depth + 1);
  try {
    return type.includes('::') && isMoveType(parseStructTag(type), depth + 1);
  } catch {
    return false;
  }
}

/**
 * A Move struct tag in canonical form (full-width addresses, so `0x2::sui::SUI` and its
 * 64-digit form are the same type), or undefined when it is not one (type arguments included).
 */
export function canonicalStructTag(value: string): string | undefined {
  try {
    const tag = parseStructTag(value);
    return isMoveType(tag, 0) ? normalizeStructTag(tag) : undefined;
  } catch {
    return undefined;
  }
}


const EXAMPLE_ADDRESS = '0x7d20dcdb2bca4f508ea9613994683eb4e76e9c4ed371169677c1be02aaf0b58e';
const EXAMPLE_DIGEST = 'DJjb3zMU7AqzjqW4Ds3B1pcJ4RqFSu4vW4EyTGn3eEWR';
const SUI = '0x0000000000000000000000000000000000000000000000000000000000000002::sui::SUI';

export const address = z.string().regex(ADDRESS_PATTERN).meta({ example: EXAMPLE_ADDRESS, description: 'Account address, 0x + 64 hex' });
export const digest = z.string().min(32).max(44).regex(DIGEST_PATTERN).refine(isDigest32, 'expected base58 of 32 bytes').meta({ example: EXAMPLE_DIGEST, description: 'base58 digest (32 bytes)' });
export const u64String = z.string().regex(/^\d+$/).meta({ example: '1500000000' });

/** String booleans of the query string: exactly "true" or "false". */
export const stringBoolean = z.enum(['true', 'false']).transform((v) => v === 'true');

/** A page size: decimal digits only (`0x10`, `1e1`, `+5` are 400), 1 to `max`. */
export const limit = (max: number) => z.string().regex(/^\d{1,6}$/, 'expected decimal digits').transform(Number).pipe(z.number().int().min(1).max(max))
  .default(Math.min(50, max)).meta({ description: `1 to ${max}, default ${Math.min(50, max)}` });
export const cursor = z.string().min(1).max(2048).optional().meta({ description: 'opaque cursor from a previous page' });

export const AddressParams = z.object({ address });
export const PageQuery = z.object({ limit: limit(100), cursor });

// ---- resources ----------------------------------------------------------------------------

export const Account = z.object({
  address,
  balance: u64String,
  usdValue: z.number().optional(),
  transactionCount: z.number().int().optional(),
  objectCount: z.number().int().optional(),
  firstActivity: z.string().optional(),
  lastActivity: z.string().optional(),
}).meta({ id: 'Account', examples: [examples.Account] });

export const Balance = z.object({
  coinType: z.string().meta({ example: SUI }),
  balance: u64String.meta({ description: 'smallest unit' }),
  totalBalance: u64String.meta({ description: 'smallest unit; coin objects plus the address balance' }),
  coinBalance: u64String.optional(),
  addressBalance: u64String.optional(),
  decimals: z.number().int().meta({ description: 'from coin metadata; 0 when the coin has none (then the balance is in base units)' }),
  symbol: z.string().optional(),
  formattedBalance: z.string().optional().meta({ description: 'balance / 10^decimals as a decimal string, when metadata exists' }),
}).meta({ id: 'Balance', examples: [examples.Balance] });

export const SuiObject = z.object({
  objectId: address,
  version: u64String,
  digest: z.string(),
  type: z.string(),
  owner: z.string().meta({ description: 'owner address or parent object id; "Shared" or "Immutable"' }),
  ownerKind: z.enum(['address', 'object', 'shared', 'immutable', 'consensus_address', 'unknown']).optional(),
  storageRebate: u64String,
  previousTransaction: z.string().optional(),
  content: z.unknown().optional().meta({ description: 'the Move value as JSON (u64 and larger as strings)' }),
}).meta({ id: 'Object', examples: [examples.Object] });

export const ObjectResponse = z.object({ data: SuiObject.optional(), error: z.string().optional() }).meta({ id: 'ObjectResponse' });

export const EventItem = z.object({
  id: z.object({ txDigest: z.string(), eventSeq: z.string() }),
  packageId: z.string().nullable().optional(),
  transactionModule: z.string().nullable().optional(),
  sender: z.string().nullable().optional(),
  timestampMs: z.string().nullable().optional(),
  type: z.string(),
  parsedJson: z.unknown().optional(),
});

export const BalanceChangeItem = z.object({
  owner: z.record(z.string(), z.string()),
  coinType: z.string(),
  amount: z.string(),
});

export const TransactionBlock = z.object({
  digest,
  checkpoint: z.string().nullable().optional(),
  timestampMs: z.string().nullable().optional(),
  transaction: z.unknown().nullable().optional().meta({ description: 'GraphQL v2 Transaction node: {digest, sender, transactionJson, signatures?}' }),
  effects: z.unknown().nullable().optional().meta({ description: 'GraphQL v2 TransactionEffects node: {status, effectsJson}' }),
  events: z.array(EventItem).nullable().optional(),
  objectChanges: z.array(z.unknown()).nullable().optional(),
  balanceChanges: z.array(BalanceChangeItem).nullable().optional(),
  confirmedLocalExecution: z.boolean().nullable().optional(),
  errors: z.array(z.string()).optional(),
}).meta({ id: 'TransactionBlockResponse', examples: [examples.TransactionBlock] });

export const ActivityItem = z.object({
  type: z.enum(['sent', 'received']),
  transactionDigest: digest,
  transaction: TransactionBlock,
  timestamp: z.string().optional(),
  amount: z.string().nullable().optional(),
  coinType: z.string().nullable().optional(),
  counterparty: z.string().nullable().optional(),
}).meta({ id: 'ActivityItem' });

export const TransactionStats = z.object({ success: z.number().int(), error: z.number().int(), total: z.number().int() }).meta({ id: 'TransactionStats', examples: [examples.TransactionStats] });

export const CoinMetadata = z.object({
  type: z.string(),
  name: z.string(),
  symbol: z.string(),
  description: z.string(),
  decimals: z.number().int(),
  iconUrl: z.url().optional(),
  totalSupply: u64String.optional(),
  verified: z.boolean().optional(),
  marketCap: z.number().optional(),
  usdValue: z.number().optional().meta({ description: 'price of one whole coin in USD' }),
}).meta({ id: 'CoinMetadata', examples: [examples.CoinMetadata] });

export const ObjectMetadata = z.object({
  objectId: address,
  type: z.string(),
  name: z.string().optional(),
  image: z.url().optional(),
  projectName: z.string().optional(),
  projectImage: z.url().optional(),
  description: z.string().optional(),
}).meta({ id: 'ObjectMetadata', examples: [examples.ObjectMetadata] });

export const Package = z.object({
  packageId: address,
  version: u64String,
  digest: z.string(),
  modules: z.array(z.object({ name: z.string() })).optional(),
}).meta({ id: 'Package', examples: [examples.Package] });

export const ChainInfo = z.object({
  chainId: z.string().meta({ description: 'base58 chain identifier' }),
  version: z.string().meta({ description: 'protocol version' }),
  latestCheckpoint: u64String,
  totalTransactions: u64String,
  networkTps: z.number().optional(),
}).meta({ id: 'ChainInfo', examples: [examples.ChainInfo] });

export const StakingParameters = z.object({
  epochLength: u64String,
  minValidatorStake: u64String,
  maxValidatorCount: z.number().int(),
  minValidatorJoiningStake: u64String,
  validatorLowStakeThreshold: u64String,
  validatorVeryLowStakeThreshold: u64String,
  validatorLowStakeGracePeriod: u64String,
}).meta({ id: 'StakingParameters', examples: [examples.StakingParameters] });

export const NetworkStats = z.object({
  totalValidators: z.number().int(),
  totalStake: u64String,
  totalCheckpoints: u64String,
  totalTransactions: u64String,
  epoch: u64String,
  epochStartTimestamp: u64String,
  epochDurationMs: u64String,
}).meta({ id: 'NetworkStats', examples: [examples.NetworkStats] });

export const ValidatorApy = z.object({ validatorAddress: address, apy: z.number(), epoch: u64String }).meta({ id: 'ValidatorApy', examples: [examples.ValidatorApy] });

export const Validator = z.object({
  suiAddress: address,
  name: z.string(),
  description: z.string(),
  votingPower: z.string(),
  stakeAmount: u64String,
  commissionRate: z.string().meta({ description: '0 to 1, e.g. "0.02"' }),
  nextEpochStake: u64String,
  imageUrl: z.url().optional(),
  projectUrl: z.url().optional(),
}).meta({ id: 'Validator', examples: [examples.Validator] });

export const Checkpoint = z.object({
  sequenceNumber: z.number().int(),
  digest: z.string(),
  prevDigest: z.string().nullable(),
  timestampMs: z.number().int(),
  epoch: z.number().int(),
  networkTxCount: z.number().int(),
  transactionBlockCount: z.number().int(),
}).meta({ id: 'Checkpoint', examples: [examples.Checkpoint] });

export const Delegation = z.object({
  stakedSuiId: address,
  validatorAddress: address.nullable(),
  poolId: address,
  principal: u64String,
  stakeActivationEpoch: u64String,
  status: z.enum(['Pending', 'Active']),
  estimatedReward: u64String.optional(),
}).meta({ id: 'Delegation', examples: [examples.Delegation] });

export const DelegationSummary = z.object({ totalStakes: z.number().int(), totalStaked: u64String });

export const NameResolution = z.object({
  name: z.string(),
  address,
  expiration: z.string().optional(),
  avatar: z.url().optional(),
  contentHash: z.string().optional(),
}).meta({ id: 'NameResolution', examples: [examples.NameResolution] });

export const ReverseResolution = z.object({ address, name: z.string().nullable() }).meta({ id: 'ReverseResolution', examples: [examples.ReverseResolution] });

/** A name of a batch resolve (spec): 1 to 63 characters, given without the name-service suffix. */
export const batchName = z.string().min(1).max(63).regex(NAME_PATTERN).refine((value) => !/\.sui$/i.test(value), { message: 'give the name without the .sui suffix' });
export const NameBatchRequest = z.object({ names: z.array(batchName).min(1).max(100) });
export const NameBatchResult = z.object({ name: z.string(), address: z.string().nullable(), error: z.string().optional() });

export const NameAvailability = z.object({ name: z.string(), available: z.boolean(), registered: z.boolean(), expiration: z.string().optional() }).meta({ id: 'NameAvailability', examples: [examples.NameAvailability] });

export const RawTransaction = z.object({
  digest,
  transactionBcs: z.string().meta({ description: 'base64 BCS of TransactionData' }),
  effectsBcs: z.string().nullable().meta({ description: 'base64 BCS of TransactionEffects' }),
  signatures: z.array(z.string()).meta({ description: 'base64 of each GenericSignature' }),
  checkpoint: u64String.nullable(),
  timestampMs: u64String.nullable(),
}).meta({ id: 'RawTransaction', examples: [examples.RawTransaction] });

export type Account = z.infer<typeof Account>;
export type Balance = z.infer<typeof Balance>;
export type SuiObject = z.infer<typeof SuiObject>;
export type ObjectResponse = z.infer<typeof ObjectResponse>;
export type TransactionBlock = z.infer<typeof TransactionBlock>;
export type ActivityItem = z.infer<typeof ActivityItem>;
export type TransactionStats = z.infer<typeof TransactionStats>;
export type CoinMetadata = z.infer<typeof CoinMetadata>;
export type ObjectMetadata = z.infer<typeof ObjectMetadata>;
export type Package = z.infer<typeof Package>;
export type ChainInfo = z.infer<typeof ChainInfo>;
export type StakingParameters = z.infer<typeof StakingParameters>;
export type NetworkStats = z.infer<typeof NetworkStats>;
export type ValidatorApy = z.infer<typeof ValidatorApy>;
export type Validator = z.infer<typeof Validator>;
export type Checkpoint = z.infer<typeof Checkpoint>;
export type Delegation = z.infer<typeof Delegation>;
export type NameResolution = z.infer<typeof NameResolution>;
export type NameAvailability = z.infer<typeof NameAvailability>;
export type RawTransaction = z.infer<typeof RawTransaction>;
export type EventItem = z.infer<typeof EventItem>;
