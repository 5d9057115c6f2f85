import type { Database } from '../../services/db/index.js';
import { ApiError } from '../../services/core/index.js';
import { getOrganization, listKeys, listProjects, slugify } from '../../services/identity/index.js';
import type { DatabaseView } from '../translate/types.js';

/** The rows of the organizations the custom resources name, read through the identity module. */
export async function loadDatabaseView(database: Database, organizationIds: Iterable<string>): Promise<DatabaseView> {
  const view: DatabaseView = { organizations: [], projects: [], keys: [] };
  for (const id of [...new Set(organizationIds)].sort()) {
    let organization;
    try {
      organization = await getOrganization(database.db, id);
    } catch (error) {
      if (error instanceof ApiError && error.code === 'ORGANIZATION_NOT_FOUND') continue;
      throw error;
    }
    view.organizations.push({ id, tier: organization.tier });
    for (const project of await listProjects(database.db, id)) {
      view.projects.push({ id: project.id, organizationId: id, slug: project.slug || slugify(project.name), network: project.network });
    }
    for (const key of await listKeys(database.db, id)) {
      view.keys.push({
        id: key.id,
        organizationId: id,
        projectId: key.projectId,
        name: key.name,
        scopes: key.scopes,
        allowedOrigins: key.allowedOrigins,
        rateLimit: key.rateLimit,
        enabled: key.enabled,
        expiresAt: key.expiresAt,
      });
    }
  }
  return view;
}
