import type { GrpcTypes } from '@mysten/sui/grpc';
import type { Balance } from '../schemas.js';
import { fullType } from './proto-values.js';

export interface CoinDecimals { decimals: number; symbol?: string }

/** base units → decimal string with `decimals` places, trailing zeros trimmed ("1.5", "42"). */
export function formatUnits(amount: bigint, decimals: number): string {
  if (decimals <= 0) return amount.toString();
  const negative = amount < 0n;
  const abs = negative ? -amount : amount;
  const scale = 10n ** BigInt(decimals);
  const whole = abs / scale;
  const fraction = (abs % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/**
 * A Balance: amounts always in base units (strings). With coin metadata, `decimals`, `symbol`
 * and `formattedBalance` say how to show it; without, the spec's fallback is `decimals: 0`.
 */
export function toBalance(balance: GrpcTypes.Balance, metadata: CoinDecimals | undefined): Balance {
  const total = balance.balance ?? 0n;
  const result: Balance = {
    coinType: fullType(balance.coinType),
    balance: total.toString(),
    totalBalance: total.toString(),
    decimals: metadata?.decimals ?? 0,
  };
  if (balance.coinBalance !== undefined) result.coinBalance = balance.coinBalance.toString();
  if (balance.addressBalance !== undefined) result.addressBalance = balance.addressBalance.toString();
  if (metadata) {
    if (metadata.symbol) result.symbol = metadata.symbol;
    result.formattedBalance = formatUnits(total, metadata.decimals);
  }
  return result;
}
