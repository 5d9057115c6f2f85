import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../db/index.js';
import { getOrganization, type Principal } from '../identity/index.js';
import { formatMicroUsd, MICRO_USD_PER_CREDIT } from '../plans/index.js';

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
    tier: organization.tier,
    subscription: {
      plan: organization.subscription.plan,
      status: organization.subscription.status,
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

/** The spec's `/auth/me` tier list has no `wallet`: a wallet organization is on no plan (free). */
export function publicTier(tier: string): string {
  return tier === 'wallet' ? 'free' : tier;
}
