import type { PublicKey } from '@mysten/sui/cryptography';
import { publicKeyFromSuiBytes } from '@mysten/sui/verify';
import { ApiError } from '../core/index.js';

/** Signature scheme flags an ephemeral key may carry (Ed25519, Secp256k1, Secp256r1) and their sizes. */
const EXTENDED_KEY_LENGTH: Readonly<Record<number, number>> = { 0x00: 33, 0x01: 34, 0x02: 34 };

/**
 * The extended ephemeral public key of the spec: base64 of the scheme flag followed by the raw
 * public key (what `getExtendedEphemeralPublicKey` of @mysten/sui/zklogin returns). Anything else
 * (no flag, a zkLogin or multisig flag, a wrong length, not base64) is 400 INVALID_EPHEMERAL_KEY.
 */
export function parseExtendedEphemeralKey(value: string): PublicKey {
  const invalid = (message: string) => new ApiError('INVALID_EPHEMERAL_KEY', { message });
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(value) || value.length % 4 !== 0) throw invalid('The key is not base64.');
  const bytes = Buffer.from(value, 'base64');
  const expected = EXTENDED_KEY_LENGTH[bytes[0] ?? -1];
  if (expected === undefined) throw invalid('The key has no Ed25519, Secp256k1 or Secp256r1 flag byte (extended form: flag ‖ public key).');
  if (bytes.length !== expected) throw invalid(`The key is ${bytes.length} bytes; its scheme needs ${expected} with the flag.`);
  try {
    return publicKeyFromSuiBytes(new Uint8Array(bytes));
  } catch {
    throw invalid('The key is not a valid public key of its scheme.');
  }
}
