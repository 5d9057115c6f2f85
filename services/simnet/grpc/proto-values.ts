import type { GrpcTypes } from '@mysten/sui/grpc';
import type { JsonValue } from '../ledger/index.js';

/** `google.protobuf.Value` (protobuf-ts shape) from JSON. */
export type ProtoValue = NonNullable<GrpcTypes.Object['json']>;
export type ProtoTimestamp = NonNullable<GrpcTypes.ExecutedTransaction['timestamp']>;

export function toProtoValue(value: JsonValue): ProtoValue {
  if (value === null) return { kind: { oneofKind: 'nullValue', nullValue: 0 } };
  if (typeof value === 'string') return { kind: { oneofKind: 'stringValue', stringValue: value } };
  if (typeof value === 'number') return { kind: { oneofKind: 'numberValue', numberValue: value } };
  if (typeof value === 'boolean') return { kind: { oneofKind: 'boolValue', boolValue: value } };
  if (Array.isArray(value)) return { kind: { oneofKind: 'listValue', listValue: { values: value.map(toProtoValue) } } };
  const fields: Record<string, ProtoValue> = {};
  for (const [key, item] of Object.entries(value)) fields[key] = toProtoValue(item);
  return { kind: { oneofKind: 'structValue', structValue: { fields } } };
}

export function toTimestamp(ms: bigint): ProtoTimestamp {
  return { seconds: ms / 1000n, nanos: Number(ms % 1000n) * 1_000_000 };
}

