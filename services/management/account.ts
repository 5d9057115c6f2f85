import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../db/index.js';
import { getOrganization, type Principal } from '../identity/index.js';
import { formatMicroUsd, MICRO_USD_PER_CREDIT, planOf, type PlanHolder } from '../plans/index.js';

export interface ManagementAccount {
  organization: { id: string; name: string; walletAddress: string | null };
  tier: string;
  subscription: { plan: string | null; status: string | null; periodEnd: string | null };
  key: { id: string; name: string; scopes: string[]; projectId: string | null; expiresAt: string };
  /** Present only for wallet organizations: the prepaid pay-per-request balance. */
  balance?: { credits: string; usd: string };
}

/** `GET /v1/account`: read fresh (not from the principal cache), since the balance moves. */
export async function describeAccount(db: Kysely<DatabaseSchema>, principal: Principal): Promise<ManagementAccount> {
  const organization = await getOrganization(db, principal.organization.id);
  const account: ManagementAccount = {
    organization: { id: organization.id, name: organization.name, walletAddress: organization.walletAddress },
    tier: tierInForce({
      tier: organization.tier,
      subscription: { plan: organization.subscription.plan, status: organization.subscription.status },
    }),
    subscription: {
      plan: organization.subscription.plan,
      status: publicSubscriptionStatus(organization.subscription.status),
      periodEnd: organization.subscription.periodEnd?.toISOString() ?? null,
    },
    key: {
      id: principal.keyId,
      name: principal.keyName,
      scopes: [...principal.scopes],
      projectId: principal.project?.id ?? null,
      expiresAt: new Date(principal.expiresAt).toISOString(),
    },
  };
  // A wallet organization is one on the `wallet` tier, with or without a registered address
  // (`suigw admin create-org --tier wallet` makes one without).
  if (organization.tier === 'wallet') {
    account.balance = {
      credits: (organization.prepaidMicroUsd / MICRO_USD_PER_CREDIT).toString(),
      usd: formatMicroUsd(organization.prepaidMicroUsd),
    };
  }
  return account;
}

/**
 * The tier whose limits apply: a paid plan's while it is in force (an organization on the free
 * tier paying for team is on team), else the organization's own. The spec's billing says as much:
 * when a plan ends "the organization returns to Free".
 */
export function tierInForce(organization: PlanHolder): string {
  return planOf(organization).id;
}

/** The spec's `/auth/me` tier list has no `wallet`: a wallet organization is on no plan (free). */
export function publicTier(tier: string): string {
  return tier === 'wallet' ? 'free' : tier;
}

/**
 * `subscription.status` in the spec's words (/auth/me: active, canceled, past_due, incomplete,
 * trialing, the card processor's vocabulary) for the states of an on-chain plan (spec: "On-chain
 * plan states"): the first charge not yet taken is `incomplete`; a cancelled plan still paid to its
 * period end is `active` (as a card subscription set to cancel at period end stays active until
 * then; `periodEnd` says when); an ended plan is `canceled`. Any other stored value (a card
 * subscription's) is shown as stored. The on-chain state itself is GET /v1/billing/onchain.
 */
const STATUS_OF_PLAN_STATE: Readonly<Record<string, string>> = {
  awaiting_first_charge: 'incomplete',
  active: 'active',
  past_due: 'past_due',
  cancel_pending: 'active',
  ended: 'canceled',
};

export function publicSubscriptionStatus(status: string | null): string | null {
  return status === null ? null : (STATUS_OF_PLAN_STATE[status] ?? status);
}
