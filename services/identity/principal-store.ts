import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../db/index.js';
import type { Network } from '../core/index.js';
import { isScope } from './scopes.js';
import type { Principal } from './principal.js';

/** What a key hash resolves to, before the checks that depend on the request. */
export type KeyResolution =
  | { kind: 'unknown' }
  | { kind: 'disabled'; keyId: string; organizationId: string | null }
  | { kind: 'no-organization'; keyId: string }
  | { kind: 'organization-deleted'; keyId: string; organizationId: string }
  | { kind: 'ok'; principal: Principal };

export async function resolveKeyHash(db: Kysely<DatabaseSchema>, hash: string): Promise<KeyResolution> {
  const row = await db
    .selectFrom('api_keys as k')
    .leftJoin('organizations as o', 'o.id', 'k.organization_id')
    .leftJoin('projects as p', 'p.id', 'k.project_id')
    .select([
      'k.id as keyId',
      'k.name as keyName',
      'k.kind as keyKind',
      'k.enabled',
      'k.expires_at as expiresAt',
      'k.scopes',
      'k.allowed_origins as allowedOrigins',
      'k.rate_limit as rateLimit',
      'k.organization_id as organizationId',
      'o.name as organizationName',
      'o.tier',
      'o.wallet_address as walletAddress',
      'o.subscription_plan as subscriptionPlan',
      'o.subscription_status as subscriptionStatus',
      'o.subscription_period_end as subscriptionPeriodEnd',
      'o.deleted_at as organizationDeletedAt',
      'p.id as projectId',
      'p.name as projectName',
      'p.network',
    ])
    .where('k.hash', '=', hash)
    .executeTakeFirst();
  if (!row) return { kind: 'unknown' };
  if (!row.enabled) return { kind: 'disabled', keyId: row.keyId, organizationId: row.organizationId };
  if (row.organizationId === null || row.organizationName === null || row.tier === null) {
    return { kind: 'no-organization', keyId: row.keyId };
  }
  if (row.organizationDeletedAt !== null) {
    return { kind: 'organization-deleted', keyId: row.keyId, organizationId: row.organizationId };
  }
  const subscription =
    row.subscriptionPlan === null && row.subscriptionStatus === null
      ? null
      : {
          plan: row.subscriptionPlan,
          status: row.subscriptionStatus,
          periodEnd: row.subscriptionPeriodEnd ? new Date(row.subscriptionPeriodEnd).getTime() : null,
        };
  return {
    kind: 'ok',
    principal: {
      keyId: row.keyId,
      keyName: row.keyName,
      keyKind: row.keyKind === 'wallet' ? 'wallet' : 'standard',
      expiresAt: new Date(row.expiresAt).getTime(),
      scopes: row.scopes.filter(isScope),
      allowedOrigins: row.allowedOrigins,
      rateLimit: { perKeyRps: row.rateLimit?.perKeyRps ?? null, perIpRps: row.rateLimit?.perIpRps ?? null },
      organization: {
        id: row.organizationId,
        name: row.organizationName,
        tier: row.tier,
        walletAddress: row.walletAddress,
        subscription,
      },
      project:
        row.projectId === null || row.projectName === null || row.network === null
          ? null
          : { id: row.projectId, name: row.projectName, network: row.network as Network },
    },
  };
}
