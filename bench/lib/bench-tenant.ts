import { systemClock } from '../../services/core/index.js';
import { createKey, createOrganization } from '../../services/identity/index.js';
import type { Database } from '../../services/db/index.js';
import { createTestDatabase } from '../../test/support/test-database.js';

/**
 * A fresh, migrated PostgreSQL database (the machine's test server) holding one `enterprise`
 * organization, so that plan limits never throttle the load, with one mainnet key that may call
 * the data plane and the management API. Dropped by `drop()`.
 */
export interface BenchTenant {
  databaseUrl: string;
  /** A pool of this process on it, for in-process measurements; servers open their own. */
  database: Database;
  apiKey: string;
  drop(): Promise<void>;
}

export async function createBenchTenant(): Promise<BenchTenant> {
  const test = await createTestDatabase();
  try {
    const { organization, projects } = await createOrganization(test.database.db, systemClock, { name: 'Bench', tier: 'enterprise' });
    const key = await createKey(test.database, systemClock, { kind: 'operator' }, {
      organizationId: organization.id,
      projectId: projects[0]!.id,
      name: 'bench',
      scopes: ['data', 'manage'],
      expiresInDays: 1,
    });
    return { databaseUrl: test.url, database: test.database, apiKey: key.apiKey, drop: () => test.drop() };
  } catch (error) {
    await test.drop();
    throw error;
  }
}
