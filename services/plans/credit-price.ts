/**
 * Prepaid pay-per-request credit: one credit costs 10 micro-USD (100,000 credits per USD). The
 * spec leaves the price open; this is ours, documented in the README.
 */
export const MICRO_USD_PER_CREDIT = 10n;

/** Integer micro-USD as a decimal USD string with at least two decimals ("5.00", "1.234567"). */
export function formatMicroUsd(microUsd: bigint): string {
  const negative = microUsd < 0n;
  const abs = negative ? -microUsd : microUsd;
  const fraction = (abs % 1_000_000n).toString().padStart(6, '0').replace(/0{1,4}$/, '');
  return `${negative ? '-' : ''}${abs / 1_000_000n}.${fraction.padEnd(2, '0')}`;
}
