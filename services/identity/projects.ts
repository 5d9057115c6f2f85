import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../db/index.js';
import { ApiError, type Clock, type Network } from '../core/index.js';
import { newId } from './ids.js';
import { slugify } from './slug.js';
import type { Database } from '../db/index.js';
import type { Plan, PlanHolder } from '../plans/index.js';

export interface Project {
  id: string;
  name: string;
  slug: string;
  network: Network;
  createdAt: string;
}

type ProjectRow = { id: string; name: string; slug: string; network: string; created_at: Date | string };

function toProject(row: ProjectRow): Project {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    network: row.network as Network,
    createdAt: new Date(row.created_at).toISOString(),
  };
}

export async function listProjects(db: Kysely<DatabaseSchema>, organizationId: string): Promise<Project[]> {
  const rows = await db
    .selectFrom('projects')
    .select(['id', 'name', 'slug', 'network', 'created_at'])
    .where('organization_id', '=', organizationId)
    .orderBy('created_seq')
    .execute();
  return rows.map(toProject);
}

export async function findProject(
  db: Kysely<DatabaseSchema>,
  organizationId: string,
  projectId: string,
): Promise<Project | undefined> {
  const row = await db
    .selectFrom('projects')
    .select(['id', 'name', 'slug', 'network', 'created_at'])
    .where('organization_id', '=', organizationId)
    .where('id', '=', projectId)
    .executeTakeFirst();
  return row ? toProject(row) : undefined;
}

/**
 * Creates a project: INVALID_PROJECT_NAME when the name yields an empty slug,
 * PROJECT_SLUG_TAKEN when the organization has that slug, PROJECT_LIMIT_REACHED at the plan's
 * project count. The organization row is locked so concurrent creations respect the limit.
 * `planOf` gives the plan in force: the subscription's while it is in force, else the tier's
 * (spec: "Projects: set by plan").
 */
export async function createProject(
  database: Database,
  clock: Clock,
  organizationId: string,
  input: { name: string; network: Network },
  planOf: (organization: PlanHolder) => Pick<Plan, 'id' | 'projects'>,
): Promise<Project> {
  const name = input.name.trim();
  const slug = slugify(name);
  if (slug === '') {
    throw new ApiError('INVALID_PROJECT_NAME', { message: 'The name must contain at least one Latin letter or digit (a-z, 0-9; accents fold to their letters): the project\'s slug is made of them.' });
  }
  return database.db.transaction().execute(async (trx) => {
    const organization = await trx
      .selectFrom('organizations')
      .select(['tier', 'subscription_plan', 'subscription_status'])
      .where('id', '=', organizationId)
      .where('deleted_at', 'is', null)
      .forUpdate()
      .executeTakeFirst();
    if (!organization) throw new ApiError('ORGANIZATION_NOT_FOUND');
    const existing = await trx
      .selectFrom('projects')
      .select(['slug'])
      .where('organization_id', '=', organizationId)
      .execute();
    if (existing.some((row) => row.slug === slug)) {
      throw new ApiError('PROJECT_SLUG_TAKEN', { message: `A project with slug '${slug}' already exists.` });
    }
    const plan = planOf({
      tier: organization.tier,
      subscription: { plan: organization.subscription_plan, status: organization.subscription_status },
    });
    if (existing.length >= plan.projects) {
      throw new ApiError('PROJECT_LIMIT_REACHED', {
        message: `The ${plan.id} plan allows ${plan.projects} project${plan.projects === 1 ? '' : 's'}.`,
      });
    }
    const row = { id: newId('proj'), organization_id: organizationId, name, slug, network: input.network, created_at: new Date(clock.now()) };
    await trx.insertInto('projects').values(row).execute();
    return toProject(row);
  });
}
