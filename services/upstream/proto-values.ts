import { normalizeStructTag, normalizeSuiAddress } from '@mysten/sui/utils';

/** google.protobuf.Value as protobuf-ts decodes it. */
export interface ProtoValue {
  kind:
    | { oneofKind: 'nullValue'; nullValue: number }
    | { oneofKind: 'numberValue'; numberValue: number }
    | { oneofKind: 'stringValue'; stringValue: string }
    | { oneofKind: 'boolValue'; boolValue: boolean }
    | { oneofKind: 'structValue'; structValue: { fields: Record<string, ProtoValue> } }
    | { oneofKind: 'listValue'; listValue: { values: ProtoValue[] } }
    | { oneofKind: undefined };
}

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The JSON a google.protobuf.Value stands for (Sui renders u64 and larger as strings inside). */
export function valueToJson(value: ProtoValue | undefined): Json {
  if (!value) return null;
  const kind = value.kind;
  switch (kind.oneofKind) {
    case 'numberValue': return kind.numberValue;
    case 'stringValue': return kind.stringValue;
    case 'boolValue': return kind.boolValue;
    case 'structValue':
      return Object.fromEntries(Object.entries(kind.structValue.fields).map(([k, v]) => [k, valueToJson(v)]));
    case 'listValue': return kind.listValue.values.map(valueToJson);
    default: return null;
  }
}

export interface ProtoTimestamp { seconds: bigint; nanos: number }

export function timestampMs(ts: ProtoTimestamp | undefined): bigint | null {
  if (!ts) return null;
  return ts.seconds * 1000n + BigInt(Math.floor(ts.nanos / 1_000_000));
}

/**
 * Type strings with full 64-hex addresses everywhere (`0x2::sui::SUI` →
 * `0x000…002::sui::SUI`), as the spec's v2 payloads require, also inside type arguments.
 * Non-struct types (`u64`, `vector<u8>`) and anything unparseable are returned unchanged.
 */
export function fullType(type: string | undefined): string {
  if (!type) return '';
  const known = normalizedTypes.get(type);
  if (known !== undefined) return known;
  let normalized: string;
  try {
    normalized = normalizeStructTag(type);
  } catch {
    normalized = type.replace(/0x[0-9a-fA-F]{1,64}(?=::)/g, (a) => normalizeSuiAddress(a));
  }
  // Parsing a struct tag is the costliest step of mapping a balance; the same few types recur.
  if (normalizedTypes.size >= 10_000) normalizedTypes.clear();
  normalizedTypes.set(type, normalized);
  return normalized;
}

const normalizedTypes = new Map<string, string>();

export function fullAddress(address: string | undefined): string {
  return address ? normalizeSuiAddress(address) : '';
}

export function base64(bytes: Uint8Array | undefined): string {
  return bytes ? Buffer.from(bytes).toString('base64') : '';
}
