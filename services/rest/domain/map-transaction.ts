import { GrpcTypes } from '@mysten/sui/grpc';
import type { ActivityItem, EventItem, TransactionBlock } from '../schemas.js';
import { changeKind, isPackageWrite, type ChangeKind } from '../../upstream/index.js';
import { fullAddress, fullType, timestampMs, valueToJson, type ProtoValue } from './proto-values.js';

type Executed = GrpcTypes.ExecutedTransaction;

/** The four include flags of `/transactions` and `/transactions/batch`. */
export interface TransactionInclude {
  /** Gas data (payment, owner, price, budget, expiration) and signatures. */
  metadata: boolean;
  events: boolean;
  /** The programmable transaction's inputs and commands (`transactionJson.kind`). */
  commands: boolean;
  balanceChanges: boolean;
}

export const includeAll: TransactionInclude = { metadata: true, events: true, commands: true, balanceChanges: true };
export const includeNone: TransactionInclude = { metadata: false, events: false, commands: false, balanceChanges: false };

/**
 * Field mask of what the gateway reads for one transaction: everything the response can show,
 * without the BCS blobs (only `/raw` asks for those).
 */
export const TRANSACTION_READ_MASK = [
  'digest', 'checkpoint', 'timestamp', 'balance_changes', 'signatures',
  'transaction.digest', 'transaction.version', 'transaction.kind', 'transaction.sender',
  'transaction.gas_payment', 'transaction.expiration',
  'effects.digest', 'effects.version', 'effects.status', 'effects.epoch', 'effects.gas_used',
  'effects.transaction_digest', 'effects.gas_object', 'effects.events_digest', 'effects.dependencies',
  'effects.lamport_version', 'effects.changed_objects', 'effects.unchanged_consensus_objects',
  'events.digest', 'events.events.package_id', 'events.events.module', 'events.events.sender',
  'events.events.event_type', 'events.events.json',
];

export const RAW_TRANSACTION_READ_MASK = ['digest', 'checkpoint', 'timestamp', 'transaction.bcs', 'effects.bcs', 'signatures.bcs'];

/** Drops BCS blobs so cached rows hold only what responses show. */
export function stripBcs(tx: Executed): Executed {
  const copy = GrpcTypes.ExecutedTransaction.create(tx);
  if (copy.transaction) copy.transaction.bcs = undefined;
  if (copy.effects) copy.effects.bcs = undefined;
  if (copy.events) {
    copy.events.bcs = undefined;
    for (const event of copy.events.events) event.contents = undefined;
  }
  for (const signature of copy.signatures) signature.bcs = undefined;
  copy.objects = undefined;
  return copy;
}

function protoJson(message: unknown, type: { toJson(m: never): unknown }): Record<string, unknown> {
  return type.toJson(message as never) as Record<string, unknown>;
}

function events(tx: Executed, timestamp: string | null): EventItem[] {
  const digest = tx.digest ?? '';
  return (tx.events?.events ?? []).map((event, index) => ({
    id: { txDigest: digest, eventSeq: String(index) },
    packageId: event.packageId ? fullAddress(event.packageId) : null,
    transactionModule: event.module ?? null,
    sender: event.sender ? fullAddress(event.sender) : null,
    timestampMs: timestamp,
    type: fullType(event.eventType),
    parsedJson: valueToJson(event.json as ProtoValue | undefined),
  }));
}

/** The REST kind of each node change kind; address-balance (accumulator) writes are no object's change. */
const REST_KIND: Record<Exclude<ChangeKind, 'accumulator'>, string> = {
  created: 'created', mutated: 'mutated', unwrapped: 'unwrapped', deleted: 'deleted', wrapped: 'wrapped', unwrappedThenDeleted: 'deleted',
};

/**
 * The objects a transaction created, mutated, published, wrapped, unwrapped or deleted, by the
 * node's own classification (`changeKind`, shared with JSON-RPC). `version` is the version the
 * transaction left: for a deleted or wrapped object, which has no output, the transaction's
 * lamport version (as a node reports it), the version it had before being `previousVersion`.
 */
function objectChanges(tx: Executed): unknown[] {
  const lamport = tx.effects?.lamportVersion?.toString() ?? null;
  const changes: unknown[] = [];
  for (const change of tx.effects?.changedObjects ?? []) {
    const kind = changeKind(change);
    if (kind === 'accumulator') continue;
    const gone = kind === 'deleted' || kind === 'wrapped' || kind === 'unwrappedThenDeleted';
    changes.push({
      type: isPackageWrite(change) ? 'published' : REST_KIND[kind],
      objectId: fullAddress(change.objectId),
      objectType: change.objectType ? fullType(change.objectType) : null,
      version: gone ? lamport : change.outputVersion?.toString() ?? null,
      previousVersion: change.inputVersion?.toString() ?? null,
      digest: change.outputDigest ?? null,
      owner: change.outputOwner ? GrpcTypes.Owner.toJson(change.outputOwner) : null,
    });
  }
  return changes;
}

/**
 * The spec's transaction block response from a gRPC ExecutedTransaction. `transaction` and
 * `effects` are the canonical v2 GraphQL nodes: Transaction {digest, sender, transactionJson}
 * and TransactionEffects {digest, status, effectsJson}, where the JSON blobs are the gRPC
 * messages in protobuf JSON (as GraphQL's `transactionJson` / `effectsJson` are).
 */
export function toTransactionBlock(tx: Executed, include: TransactionInclude): TransactionBlock {
  const timestamp = timestampMs(tx.timestamp);
  const timestampStr = timestamp === null ? null : timestamp.toString();
  const transactionJson = tx.transaction ? protoJson(GrpcTypes.Transaction.create({ ...tx.transaction, bcs: undefined }), GrpcTypes.Transaction) : {};
  if (!include.commands) delete transactionJson.kind;
  if (!include.metadata) { delete transactionJson.gasPayment; delete transactionJson.expiration; }
  const transaction: Record<string, unknown> = {
    digest: tx.digest,
    sender: tx.transaction?.sender ? fullAddress(tx.transaction.sender) : null,
    transactionJson,
  };
  if (include.metadata) {
    transaction.signatures = tx.signatures.map((s) => GrpcTypes.UserSignature.toJson(GrpcTypes.UserSignature.create({ ...s, bcs: undefined })));
  }
  const success = tx.effects?.status?.success;
  const effects = tx.effects ? {
    digest: tx.effects.digest ?? null,
    status: success === undefined ? null : success ? 'SUCCESS' : 'FAILURE',
    effectsJson: protoJson(GrpcTypes.TransactionEffects.create({ ...tx.effects, bcs: undefined }), GrpcTypes.TransactionEffects),
  } : null;
  const block: TransactionBlock = {
    digest: tx.digest ?? '',
    checkpoint: tx.checkpoint === undefined ? null : tx.checkpoint.toString(),
    timestampMs: timestampStr,
    transaction,
    effects,
    events: include.events ? events(tx, timestampStr) : null,
    objectChanges: objectChanges(tx),
    balanceChanges: include.balanceChanges
      ? tx.balanceChanges.map((c) => ({ owner: { AddressOwner: fullAddress(c.address) }, coinType: fullType(c.coinType), amount: c.amount ?? '0' }))
      : null,
    confirmedLocalExecution: null,
  };
  if (success === false) block.errors = [tx.effects?.status?.error?.description ?? 'execution failed'];
  return block;
}

interface Change { address: string; coinType: string; amount: bigint }

function largest(changes: Change[]): Change | undefined {
  return changes.reduce<Change | undefined>((best, c) => (!best || c.amount > best.amount ? c : best), undefined);
}

/**
 * An activity item for `account`, derived from balance changes:
 * - sent (account is the sender): counterparty and amount from the largest credit to another
 *   address; without one (a Move call, a self-transfer), the account's largest debit and no
 *   counterparty.
 * - received: the account's largest credit; the counterparty is the sender.
 * Amounts are positive base-unit strings; gas is not counted as an amount.
 */
export function toActivityItem(tx: Executed, account: string, include: TransactionInclude = includeAll): ActivityItem {
  const me = fullAddress(account);
  const sender = tx.transaction?.sender ? fullAddress(tx.transaction.sender) : null;
  const changes: Change[] = tx.balanceChanges.map((c) => ({ address: fullAddress(c.address), coinType: fullType(c.coinType), amount: BigInt(c.amount ?? '0') }));
  const block = toTransactionBlock(tx, include);
  const item: ActivityItem = {
    type: sender === me ? 'sent' : 'received',
    transactionDigest: tx.digest ?? '',
    transaction: block,
    amount: null,
    coinType: null,
    counterparty: null,
  };
  if (block.timestampMs) item.timestamp = new Date(Number(block.timestampMs)).toISOString();
  if (item.type === 'sent') {
    const credit = largest(changes.filter((c) => c.address !== me && c.amount > 0n));
    if (credit) {
      Object.assign(item, { amount: credit.amount.toString(), coinType: credit.coinType, counterparty: credit.address });
    } else {
      const debit = largest(changes.filter((c) => c.address === me && c.amount < 0n).map((c) => ({ ...c, amount: -c.amount })));
      if (debit) Object.assign(item, { amount: debit.amount.toString(), coinType: debit.coinType });
    }
  } else {
    const credit = largest(changes.filter((c) => c.address === me && c.amount > 0n));
    if (credit) Object.assign(item, { amount: credit.amount.toString(), coinType: credit.coinType });
    item.counterparty = sender;
  }
  return item;
}
