/**
 * The organization tiers, the one list: the plans (plan-table.ts) are keyed by them, the
 * database accepts only them, the CRDs and the CLI validate against them.
 */
export const TIERS = ['free', 'team', 'growth', 'professional', 'business', 'enterprise', 'wallet'] as const;
export type Tier = (typeof TIERS)[number];

export function isTier(value: string | null | undefined): value is Tier {
  return value !== null && value !== undefined && (TIERS as readonly string[]).includes(value);
}

/** A tier that is not in the list: a bug or a corrupt row, never silently the free plan. */
export class UnknownTierError extends Error {
  constructor(readonly tier: string) {
    super(`unknown organization tier '${tier}' (known: ${TIERS.join(', ')})`);
    this.name = 'UnknownTierError';
  }
}

/** The tier, or UnknownTierError. */
export function parseTier(value: string): Tier {
  if (!isTier(value)) throw new UnknownTierError(value);
  return value;
}
