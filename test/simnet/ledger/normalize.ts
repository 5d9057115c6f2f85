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

/** Does an event type match a Sui event type filter (`0xP`, `0xP::m`, `0xP::m::N`, `0xP::m::N<…>`)? */
export function eventTypeMatches(eventType: string, filter: string): boolean {
  const parts = filter.split('::');
  if (parts.length === 1) return eventType.startsWith(normalizeAddress(parts[0]!) + '::');
  if (parts.length === 2) return eventType.startsWith(`${normalizeAddress(parts[0]!)}::${parts[1]}::`);
  const normalized = normalizeType(filter);
  return normalized.includes('<') ? eventType === normalized : baseType(eventType) === normalized;
}

/** `@alice` and `Alice.SUI` both mean `alice.sui`. */
export function canonicalName(name: string): string {
  const lower = name.trim().toLowerCase();
  if (lower.startsWith('@')) return `${lower.slice(1)}.sui`;
  return lower;
}
