import { fromBase58, normalizeSuiAddress } from '@mysten/sui/utils';
import { invalidArgument } from './errors.js';

/** A Sui address / object id in hex (`0x` + 1–64 hex digits); normalized. */
export function parseAddress(value: string | undefined, field: string): string {
  if (!value) throw invalidArgument(`missing ${field}`);
  if (!/^0x[0-9a-fA-F]{1,64}$/.test(value)) throw invalidArgument(`invalid ${field}: ${value}`);
  return normalizeSuiAddress(value);
}

/** A base58 32-byte digest. */
export function parseDigest(value: string | undefined, field: string): string {
  if (!value) throw invalidArgument(`missing ${field}`);
  let bytes: Uint8Array;
  try {
    bytes = fromBase58(value);
  } catch {
    throw invalidArgument(`invalid ${field}: ${value}`);
  }
  if (bytes.length !== 32) throw invalidArgument(`invalid ${field}: ${value}`);
  return value;
}

/** Page tokens are the ledger's opaque cursors as UTF-8 bytes. */
export function pageTokenToCursor(token: Uint8Array | undefined): string | undefined {
  if (!token || token.length === 0) return undefined;
  return Buffer.from(token).toString('utf8');
}

export function cursorToPageToken(cursor: string | undefined): Uint8Array | undefined {
  return cursor === undefined ? undefined : new Uint8Array(Buffer.from(cursor, 'utf8'));
}

export function pageSize(size: number | undefined, max = 1000): number | undefined {
  if (size === undefined || size === 0) return undefined;
  return Math.min(size, max);
}
