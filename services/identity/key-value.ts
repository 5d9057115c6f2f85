import { createHash, randomBytes } from 'node:crypto';
import { toBase58 } from '@mysten/sui/utils';
import { KEY_VALUE_PATTERN } from '../core/index.js';

/** Every key value starts with the service prefix (spec: Authentication 3). */
export const KEY_PREFIX = 'svc_pat_';
/** How much of a key a listing shows: the prefix and four more characters. */
export const KEY_START_LENGTH = KEY_PREFIX.length + 4;
const SECRET_BYTES = 32;

/** A new key value: the prefix and 32 random bytes in base58 (about 44 characters). */
export function generateKeyValue(): string {
  return KEY_PREFIX + toBase58(randomBytes(SECRET_BYTES));
}

/**
 * The stored form of a key. A plain SHA-256 suffices: the value carries 256 bits of entropy, so
 * no dictionary or brute force applies, and verification stays on the hot path's budget.
 */
export function hashKeyValue(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

export function keyStart(value: string): string {
  return value.slice(0, KEY_START_LENGTH);
}

/** Cheap syntactic check before any lookup: the prefix and base58 characters only. */
export function isWellFormedKeyValue(value: string): boolean {
  return KEY_VALUE_PATTERN.test(value);
}
