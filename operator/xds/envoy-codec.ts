import type protobuf from 'protobufjs';
import { envoyProtoRoot } from './envoy-protos.js';
import type { EnvoyResource } from './snapshot.js';
import { messageNameOf } from './type-urls.js';

const TO_OBJECT: protobuf.IConversionOptions = { enums: String, longs: Number, bytes: String, json: true };

function messageType(typeUrl: string): protobuf.Type {
  return envoyProtoRoot().lookupType(messageNameOf(typeUrl));
}

/** The wire bytes of a resource, by Envoy's own message type. */
export function encodeResource(typeUrl: string, resource: EnvoyResource): Uint8Array {
  const type = messageType(typeUrl);
  return type.encode(type.fromObject(resource)).finish();
}

/** Bytes → object form again (the same form the translation writes). */
export function decodeResource(typeUrl: string, bytes: Uint8Array): Record<string, unknown> {
  const type = messageType(typeUrl);
  return type.toObject(type.decode(bytes), TO_OBJECT);
}

function isProtoDefault(value: unknown): boolean {
  if (value === false || value === 0 || value === '' || value === null) return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === 'object') return Object.values(value as object).every(isProtoDefault);
  return false;
}

/**
 * Where `decoded` differs from `original`, as JSON paths. protobufjs drops fields its type does
 * not know (a misspelt or misplaced field) without a word, so anything present in the original
 * and absent after the round trip is reported, unless it is a proto3 default (which the wire
 * cannot carry); enum defaults are compared by name.
 */
export function lossesOf(original: unknown, decoded: unknown, path = '$'): string[] {
  if (Array.isArray(original)) {
    if (!Array.isArray(decoded)) return isProtoDefault(original) ? [] : [path];
    if (original.length !== decoded.length) return [`${path} (length ${original.length} → ${decoded.length})`];
    return original.flatMap((item, index) => lossesOf(item, decoded[index], `${path}[${index}]`));
  }
  if (original !== null && typeof original === 'object') {
    if (decoded === undefined) return isProtoDefault(original) ? [] : [path];
    if (decoded === null || typeof decoded !== 'object') return [path];
    const out = decoded as Record<string, unknown>;
    const losses = Object.entries(original).flatMap(([key, value]) => lossesOf(value, out[key], `${path}.${key}`));
    const extra = Object.keys(out).filter((key) => !(key in original) && !isProtoDefault(out[key]));
    return [...losses, ...extra.map((key) => `${path}.${key} (added)`)];
  }
  if (decoded === undefined) return isProtoDefault(original) ? [] : [path];
  return original === decoded ? [] : [`${path} (${JSON.stringify(original)} → ${JSON.stringify(decoded)})`];
}

/** Encodes, decodes and compares: the list of fields Envoy's protos would not carry. */
export function roundTripLosses(typeUrl: string, resource: EnvoyResource): string[] {
  return lossesOf(resource, decodeResource(typeUrl, encodeResource(typeUrl, resource)));
}
