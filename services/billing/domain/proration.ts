/**
 * Billing rule 6: `when: now` charges the new price minus the unused part of the current
 * period, and a new period starts today. The credit is the old price times the share of the
 * period not yet used, rounded down to the micro-USDC (the rounding never favours the service
 * by more than one micro-USDC, and never makes a charge negative).
 */
export function proratedUpgradeCharge(input: {
  newPrice: bigint;
  oldPrice: bigint;
  periodStart: number;
  periodEnd: number;
  now: number;
}): { charge: bigint; credit: bigint } {
  const { newPrice, oldPrice, periodStart, periodEnd, now } = input;
  const length = BigInt(Math.max(1, periodEnd - periodStart));
  const unused = BigInt(Math.min(Math.max(0, periodEnd - now), periodEnd - periodStart));
  const credit = (oldPrice * unused) / length;
  const charge = newPrice > credit ? newPrice - credit : 0n;
  return { charge, credit };
}
