import type { Clock } from '../core/index.js';
import type { Database } from '../db/index.js';
import {
  createKey,
  createOrganization,
  hashKeyValue,
  isWellFormedKeyValue,
  type Scope,
} from '../identity/index.js';

export const DEV_ADMIN_SCOPES: Scope[] = ['data', 'streams', 'manage', 'zkLogin'];

/**
 * The stored or configured admin key exists but can no longer be used: `suigw dev` explains
 * how to get a working one instead of failing with a stack trace.
 */
export class UnusableDevAdminKeyError extends Error {
  constructor(readonly reason: 'disabled' | 'expired' | 'not tied to an organization') {
    super(`the dev admin key is ${reason}`);
    this.name = 'UnusableDevAdminKeyError';
  }
}

export interface DevSeed {
  organizationId: string;
  adminKey: string;
  created: boolean;
}

/**
 * The dev organization: one org (tier team) with a mainnet and a testnet project and an admin
 * key. Idempotent across restarts: a still-valid admin key (from SUIGW_DEV_ADMIN_KEY or the
 * previous state file) is reused, so `make dev` twice prints the same key.
 */
export async function seedDevOrganization(
  database: Database,
  clock: Clock,
  wanted: { adminKey: string | undefined; organizationId: string | undefined },
): Promise<DevSeed> {
  if (wanted.adminKey !== undefined && !isWellFormedKeyValue(wanted.adminKey)) {
    throw new Error('SUIGW_DEV_ADMIN_KEY must be svc_pat_ followed by at least 32 base58 characters');
  }
  if (wanted.adminKey) {
    const existing = await database.db
      .selectFrom('api_keys')
      .select(['organization_id', 'enabled', 'expires_at'])
      .where('hash', '=', hashKeyValue(wanted.adminKey))
      .executeTakeFirst();
    if (existing?.enabled && existing.organization_id && new Date(existing.expires_at).getTime() > clock.now()) {
      return { organizationId: existing.organization_id, adminKey: wanted.adminKey, created: false };
    }
    if (existing) {
      const expired = new Date(existing.expires_at).getTime() <= clock.now();
      throw new UnusableDevAdminKeyError(!existing.enabled ? 'disabled' : expired ? 'expired' : 'not tied to an organization');
    }
  }
  const organization = wanted.organizationId
    ? await database.db
        .selectFrom('organizations')
        .select('id')
        .where('id', '=', wanted.organizationId)
        .where('deleted_at', 'is', null)
        .executeTakeFirst()
    : undefined;
  const organizationId =
    organization?.id ??
    (
      await createOrganization(database.db, clock, {
        name: 'Dev',
        tier: 'team',
        projects: [
          { name: 'Default', network: 'mainnet' },
          { name: 'Testnet', network: 'testnet' },
        ],
      })
    ).organization.id;
  const mainnetProject = await database.db
    .selectFrom('projects')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('network', '=', 'mainnet')
    .orderBy('created_seq')
    .executeTakeFirstOrThrow();
  const key = await createKey(database, clock, { kind: 'operator' }, {
    organizationId,
    projectId: mainnetProject.id,
    name: 'dev admin',
    scopes: DEV_ADMIN_SCOPES,
    expiresInDays: 365,
    ...(wanted.adminKey ? { value: wanted.adminKey } : {}),
  });
  return { organizationId, adminKey: key.apiKey, created: true };
}
