/**
 * What an on-chain plan costs (spec: Billing rule 1). USDC has 6 decimals, so prices are integer
 * micro-USDC; money never touches floating point.
 */
export const PAID_TIERS = ['team', 'growth', 'professional', 'business'] as const;
export type PaidTier = (typeof PAID_TIERS)[number];

export const INTERVALS = ['month', 'year'] as const;
export type Interval = (typeof INTERVALS)[number];

const MICRO = 1_000_000n;

/** Monthly price per tier, in micro-USDC (team 49, growth 199, professional 499, business 999). */
export const MONTHLY_PRICE: Readonly<Record<PaidTier, bigint>> = Object.freeze({
  team: 49n * MICRO,
  growth: 199n * MICRO,
  professional: 499n * MICRO,
  business: 999n * MICRO,
});

/**
 * Months paid per year on an annual plan. The spec names an "annual price" without a number;
 * ours is ten months for twelve (docs/billing.md, Prices), the usual discount for paying ahead.
 */
export const ANNUAL_MONTHS_PAID = 10n;

/** The price of one period of a plan: the allowance's per-period limit and each renewal's charge. */
export function periodPrice(tier: PaidTier, interval: Interval): bigint {
  return interval === 'year' ? MONTHLY_PRICE[tier] * ANNUAL_MONTHS_PAID : MONTHLY_PRICE[tier];
}

/** Tiers ordered by price: an upgrade goes up this list, a downgrade down. */
export function tierRank(tier: PaidTier): number {
  return PAID_TIERS.indexOf(tier);
}

export function isPaidTier(value: string): value is PaidTier {
  return (PAID_TIERS as readonly string[]).includes(value);
}

/** `49000000n` → `"49.00"`: for emails and documentation, never for arithmetic. */
export function formatUsdc(micro: bigint): string {
  const cents = micro / 10_000n;
  return `${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`;
}
