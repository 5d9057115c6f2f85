/**
 * The plans file, version 1. Data only: `plans.ts` validates it with zod when the module loads.
 * The spec gives proofs per minute (team 20, growth 60, professional 120, business 300,
 * enterprise unlimited) and the wallet organization's single project; every other number is
 * ours, documented in docs/metering.md. A change of any number is a new version of this file.
 *
 * `null` means unlimited. `monthlyCredits` replenish on the 1st of each month, 00:00 UTC.
 */
export const PLANS_V1 = {
  version: 1,
  plans: {
    free: { orgRps: 10, monthlyCredits: 1_000_000, projects: 2, streams: 1, webhooks: 1, proofsPerMinute: 0 },
    team: { orgRps: 50, monthlyCredits: 25_000_000, projects: 5, streams: 5, webhooks: 5, proofsPerMinute: 20 },
    growth: { orgRps: 100, monthlyCredits: 100_000_000, projects: 10, streams: 20, webhooks: 20, proofsPerMinute: 60 },
    professional: { orgRps: 250, monthlyCredits: 300_000_000, projects: 25, streams: 50, webhooks: 50, proofsPerMinute: 120 },
    business: { orgRps: 500, monthlyCredits: 750_000_000, projects: 50, streams: 200, webhooks: 200, proofsPerMinute: 300 },
    enterprise: { orgRps: 2_000, monthlyCredits: 5_000_000_000, projects: 200, streams: 1_000, webhooks: 1_000, proofsPerMinute: null },
    // Pay per request: no monthly quota, the prepaid balance is the credit (spec: Management account).
    wallet: { orgRps: 50, monthlyCredits: 0, projects: 1, streams: 5, webhooks: 5, proofsPerMinute: 20 },
  },
} as const;
