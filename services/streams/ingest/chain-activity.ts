import type { GrpcTypes } from '@mysten/sui/grpc';

/** One executed transaction as the matcher reads it (from a checkpoint, live or backfilled). */
export interface ChainTransaction {
  checkpoint: string;
  timestampMs: number | null;
  digest: string;
  sender: string | null;
  events: { index: number; type: string; sender: string | null; packageId: string | null; module: string | null; json: unknown }[];
  balanceChanges: { address: string; coinType: string; amount: string }[];
  changedObjects: {
    objectId: string;
    objectType: string | null;
    idOperation: 'none' | 'created' | 'deleted' | 'unknown';
    inputOwner: string | null;
    outputOwner: string | null;
    outputVersion: string | null;
  }[];
}

/** The checkpoint fields ingest asks for, live (SubscribeCheckpoints) and in backfill (GetCheckpoint). */
export const CHECKPOINT_READ_MASK = [
  'sequence_number',
  'summary.timestamp',
  'transactions.digest',
  'transactions.transaction.sender',
  'transactions.events',
  'transactions.balance_changes',
  'transactions.effects.changed_objects',
];

const ID_OPERATIONS = ['unknown', 'none', 'created', 'deleted'] as const;

function ownerOf(owner: GrpcTypes.Owner | undefined): string | null {
  if (!owner) return null;
  // address-owned and object-owned (kind 1, 2) carry an address; shared and immutable do not.
  return owner.address ?? null;
}

/** google.protobuf.Value, as the SDK's generated Event type holds it. */
type ProtoValue = NonNullable<GrpcTypes.Event['json']>;

/** protobuf `Value` → plain JSON (the event's Move struct as JSON). */
export function valueToJson(value: ProtoValue | undefined): unknown {
  if (!value) return null;
  const kind = value.kind;
  switch (kind.oneofKind) {
    case 'nullValue': return null;
    case 'numberValue': return kind.numberValue;
    case 'stringValue': return kind.stringValue;
    case 'boolValue': return kind.boolValue;
    case 'structValue': return Object.fromEntries(Object.entries(kind.structValue.fields).map(([k, v]) => [k, valueToJson(v)]));
    case 'listValue': return kind.listValue.values.map(valueToJson);
    default: return null;
  }
}

/** When the checkpoint was sealed (its summary's timestamp), in ms; null when the read mask left it out. */
export function timestampMs(checkpoint: GrpcTypes.Checkpoint): number | null {
  const stamp = checkpoint.summary?.timestamp;
  if (!stamp) return null;
  return Number(stamp.seconds) * 1000 + Math.floor(stamp.nanos / 1_000_000);
}

export function checkpointTransactions(checkpoint: GrpcTypes.Checkpoint): ChainTransaction[] {
  const sequence = String(checkpoint.sequenceNumber ?? 0n);
  const at = timestampMs(checkpoint);
  return checkpoint.transactions.map((transaction) => ({
    checkpoint: sequence,
    timestampMs: at,
    digest: transaction.digest ?? '',
    sender: transaction.transaction?.sender ?? null,
    events: (transaction.events?.events ?? []).map((event, index) => ({
      index,
      type: event.eventType ?? '',
      sender: event.sender ?? null,
      packageId: event.packageId ?? null,
      module: event.module ?? null,
      json: valueToJson(event.json),
    })),
    balanceChanges: transaction.balanceChanges.map((change) => ({
      address: change.address ?? '',
      coinType: change.coinType ?? '',
      amount: change.amount ?? '0',
    })),
    changedObjects: (transaction.effects?.changedObjects ?? []).map((object) => ({
      objectId: object.objectId ?? '',
      objectType: object.objectType ?? null,
      idOperation: ID_OPERATIONS[object.idOperation ?? 0] ?? 'unknown',
      inputOwner: ownerOf(object.inputOwner),
      outputOwner: ownerOf(object.outputOwner),
      outputVersion: object.outputVersion === undefined ? null : String(object.outputVersion),
    })),
  }));
}
