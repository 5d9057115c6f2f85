import type { Kysely, Transaction } from 'kysely';
import type { DatabaseSchema } from '../db/index.js';
import { ApiError, type Clock, type Network } from '../core/index.js';
import { newId } from './ids.js';
import { slugify } from './slug.js';
import type { Tier } from '../plans/index.js';

export interface Organization {
  id: string;
  name: string;
  tier: string;
  walletAddress: string | null;
  prepaidMicroUsd: bigint;
  subscription: { plan: string | null; status: string | null; periodEnd: Date | null };
  createdAt: Date;
}

export interface NewOrganization {
  name: string;
  tier: Tier;
  walletAddress?: string | null;
  /** Projects to create besides nothing; the spec's default is one mainnet project. */
  projects?: { name: string; network: Network }[];
}

export interface CreatedOrganization {
  organization: Organization;
  projects: { id: string; name: string; slug: string; network: Network }[];
}

type Db = Kysely<DatabaseSchema> | Transaction<DatabaseSchema>;

export const DEFAULT_PROJECT = { name: 'Default', network: 'mainnet' } as const;

/** Creates an organization with its projects (default: one mainnet project, as the spec says). */
export async function createOrganization(db: Kysely<DatabaseSchema>, clock: Clock, input: NewOrganization): Promise<CreatedOrganization> {
  const now = new Date(clock.now());
  const organizationId = newId('org');
  const projects = (input.projects ?? [DEFAULT_PROJECT]).map((project) => ({
    id: newId('proj'),
    name: project.name,
    slug: slugify(project.name),
    network: project.network,
  }));
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('organizations')
      .values({
        id: organizationId,
        name: input.name,
        tier: input.tier,
        wallet_address: input.walletAddress ?? null,
        created_at: now,
      })
      .execute();
    for (const project of projects) {
      await trx
        .insertInto('projects')
        .values({ ...project, organization_id: organizationId, created_at: now })
        .execute();
    }
  });
  const organization = await getOrganization(db, organizationId);
  return { organization, projects };
}

export async function getOrganization(db: Db, organizationId: string): Promise<Organization> {
  const row = await db
    .selectFrom('organizations')
    .selectAll()
    .where('id', '=', organizationId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!row) throw new ApiError('ORGANIZATION_NOT_FOUND');
  return {
    id: row.id,
    name: row.name,
    tier: row.tier,
    walletAddress: row.wallet_address,
    prepaidMicroUsd: BigInt(row.prepaid_micro_usd),
    subscription: {
      plan: row.subscription_plan,
      status: row.subscription_status,
      periodEnd: row.subscription_period_end ? new Date(row.subscription_period_end) : null,
    },
    createdAt: new Date(row.created_at),
  };
}

/**
 * Records whether the organization pays by card (what STRIPE_SUBSCRIPTION_ACTIVE reads). Billing
 * rule 1, one payment method at a time: turning it on is refused while an on-chain plan is live
 * (ONCHAIN_SUBSCRIPTION_EXISTS), under the organization row's lock that activate takes to write a plan.
 */
export async function setCardSubscription(db: Kysely<DatabaseSchema>, organizationId: string, active: boolean): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const organization = await trx.selectFrom('organizations').select('id').where('id', '=', organizationId).where('deleted_at', 'is', null).forUpdate().executeTakeFirst();
    if (!organization) throw new ApiError('ORGANIZATION_NOT_FOUND');
    if (active) {
      const plan = await trx.selectFrom('onchain_plans').select('id').where('organization_id', '=', organizationId).where('state', '<>', 'ended').executeTakeFirst();
      if (plan) throw new ApiError('ONCHAIN_SUBSCRIPTION_EXISTS', { message: 'An organization on an on-chain plan cannot pay by card too.' });
    }
    await trx.updateTable('organizations').set({ card_subscription_active: active }).where('id', '=', organizationId).execute();
  });
}

/** Adds prepaid pay-per-request credit (integer micro-USD) and records the grant. */
export async function grantPrepaidCredit(
  db: Kysely<DatabaseSchema>,
  clock: Clock,
  organizationId: string,
  microUsd: bigint,
  note = '',
): Promise<bigint> {
  if (microUsd <= 0n) throw new ApiError('VALIDATION_FAILED', { message: 'A grant must be positive.' });
  return db.transaction().execute(async (trx) => {
    // Billing rule 8: an organization on an on-chain plan cannot receive pay-per-request deposits.
    // The organization row is locked first, as activate locks it to write a plan: a plan written
    // while this grant was checking is seen (it was not, and the deposit was booked beside it).
    await trx.selectFrom('organizations').select('id').where('id', '=', organizationId).forUpdate().execute();
    const plan = await trx.selectFrom('onchain_plans').select('id').where('organization_id', '=', organizationId).where('state', '<>', 'ended').executeTakeFirst();
    if (plan) throw new ApiError('ONCHAIN_SUBSCRIPTION_EXISTS', { message: 'An organization on an on-chain plan cannot receive pay-per-request deposits.' });
    const updated = await trx
      .updateTable('organizations')
      .set((eb) => ({ prepaid_micro_usd: eb('prepaid_micro_usd', '+', microUsd.toString()) }))
      .where('id', '=', organizationId)
      .where('deleted_at', 'is', null)
      .returning('prepaid_micro_usd')
      .executeTakeFirst();
    if (!updated) throw new ApiError('ORGANIZATION_NOT_FOUND');
    await trx
      .insertInto('prepaid_grants')
      .values({ id: newId('grant'), organization_id: organizationId, micro_usd: microUsd, note, created_at: new Date(clock.now()) })
      .execute();
    return BigInt(updated.prepaid_micro_usd);
  });
}
