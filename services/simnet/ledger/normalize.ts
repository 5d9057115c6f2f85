/** Normalizing what readers receive: addresses, types, names, event-type filters. */
import { isValidSuiAddress, normalizeStructTag, normalizeSuiAddress } from '@mysten/sui/utils';
import { InvalidArgumentError } from './errors.js';
import { baseType } from './object-encoding.js';

export function normalizeAddress(address: string): string {
  const normalized = normalizeSuiAddress(address);
  if (!isValidSuiAddress(normalized)) throw new InvalidArgumentError(`invalid address: ${address}`);
  return normalized;
}

export function normalizeType(type: string): string {
  try {
    return normalizeStructTag(type);
  } catch {
    throw new InvalidArgumentError(`invalid type: ${type}`);
  }
}

/**
 * Sui's type filter (events, owned objects): `0xP` (package), `0xP::m` (module), `0xP::m::N`
 * (any instantiation) or `0xP::m::N<…>` (exactly that instantiation). Throws
 * InvalidArgumentError for a malformed filter.
 */
export function typeFilterMatcher(filter: string): (type: string) => boolean {
  const parts = filter.split('::');
  if (parts.length === 1) {
    const prefix = `${normalizeAddress(parts[0]!)}::`;
    return (type) => type.startsWith(prefix);
  }
  if (parts.length === 2) {
    const prefix = `${normalizeAddress(parts[0]!)}::${parts[1]}::`;
    return (type) => type.startsWith(prefix);
  }
  const normalized = normalizeType(filter);
  return normalized.includes('<') ? (type) => type === normalized : (type) => type !== 'package' && baseType(type) === normalized;
}

/** `@alice` and `Alice.SUI` both mean `alice.sui`. */
export function canonicalName(name: string): string {
  const lower = name.trim().toLowerCase();
  if (lower.startsWith('@')) return `${lower.slice(1)}.sui`;
  return lower;
}
