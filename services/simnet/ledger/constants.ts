import { normalizeStructTag, normalizeSuiAddress } from '@mysten/sui/utils';

export const SUI_FRAMEWORK = normalizeSuiAddress('0x2');
export const SUI_SYSTEM = normalizeSuiAddress('0x3');
export const MOVE_STDLIB = normalizeSuiAddress('0x1');
export const CLOCK_ID = normalizeSuiAddress('0x6');
export const ZERO_ADDRESS = normalizeSuiAddress('0x0');

export const SUI_COIN_TYPE = normalizeStructTag('0x2::sui::SUI');
export const MIST_PER_SUI = 1_000_000_000n;

/** `0x2::coin::Coin<T>` with full addresses. */
export function coinObjectType(coinType: string): string {
  return `${SUI_FRAMEWORK}::coin::Coin<${normalizeStructTag(coinType)}>`;
}
