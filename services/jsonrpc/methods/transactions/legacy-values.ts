import { normalizeSuiAddress, toBase64 } from '@mysten/sui/utils';
import type { GrpcTypes } from '@mysten/sui/grpc';
import { valueToJson as protoValueToJson, type Json, type ProtoValue } from '../../../upstream/index.js';

/**
 * Small conversions every legacy renderer shares: the legacy JSON-RPC writes ids and addresses as
 * full 64-hex strings, u64 values as decimal strings, and Move types the way Rust's `StructTag`
 * displays them (leading zeros of addresses dropped: `0x2::sui::SUI`).
 */

export type { Json };

export function address(value: string | undefined): string {
  return normalizeSuiAddress(value ?? '0x0');
}

export function u64(value: bigint | number | string | undefined | null): string {
  return value === undefined || value === null ? '0' : BigInt(value).toString();
}

/** `0x000…002::coin::Coin<0x000…002::sui::SUI>` → `0x2::coin::Coin<0x2::sui::SUI>`, as a node displays types. */
export function legacyType(type: string | undefined): string {
  if (!type) return '';
  return type.replace(/0x0*([0-9a-fA-F]+)(?=::)/g, (_, hex: string) => `0x${hex.toLowerCase()}`);
}

/** The JSON a google.protobuf.Value stands for (the helper REST shares, services/upstream/proto-values.ts). */
export function valueToJson(value: unknown): Json {
  return protoValueToJson(value as ProtoValue | undefined);
}

export function timestampMs(ts: { seconds: bigint; nanos: number } | undefined): string | null {
  if (!ts) return null;
  return (ts.seconds * 1000n + BigInt(Math.floor(ts.nanos / 1_000_000))).toString();
}

const OWNER_ADDRESS = 1;
const OWNER_OBJECT = 2;
const OWNER_SHARED = 3;
const OWNER_IMMUTABLE = 4;
const OWNER_CONSENSUS_ADDRESS = 5;

/** A v2 `Owner` as the legacy `Owner` enum. */
export function legacyOwner(owner: GrpcTypes.Owner | undefined): Json {
  switch (owner?.kind) {
    case OWNER_ADDRESS: return { AddressOwner: address(owner.address) };
    case OWNER_OBJECT: return { ObjectOwner: address(owner.address) };
    // initial_shared_version / start_version are `SequenceNumber2`: decimal strings in the document.
    case OWNER_SHARED: return { Shared: { initial_shared_version: u64(owner.version) } };
    case OWNER_IMMUTABLE: return 'Immutable';
    case OWNER_CONSENSUS_ADDRESS: return { ConsensusAddressOwner: { owner: address(owner.address), start_version: u64(owner.version) } };
    default: return 'Immutable';
  }
}

export function base64(bytes: Uint8Array | undefined): string {
  return toBase64(bytes ?? new Uint8Array());
}
