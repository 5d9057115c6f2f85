import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../../services/core/index.js';
import { createKey, createOrganization } from '../../services/identity/index.js';
import { PLANS } from '../../services/plans/index.js';
import type { Database } from '../../services/db/index.js';
import { createTestDatabase } from '../../test/support/test-database.js';

/**
 * The organization-wide rate of the bench's enterprise plan: far above what this 2-core machine
 * can produce (direct gRPC to simnet peaks near 15,000 calls/s), so that a benchmark measures the
 * gateway, not the plan. The built-in enterprise rate (2,000/s) is below what the gateway and the
 * gRPC proxy now serve: with it, the rounds measured refusals (docs/benchmarks.md).
 */
export const BENCH_ORG_RPS = 50_000;

/**
 * A fresh, migrated PostgreSQL database (the machine's test server) holding one `enterprise`
 * organization, with one mainnet key that may call the data plane and the management API, and a
 * plans file (SUIGW_PLANS_FILE, as a self-hosted deployment sets its own numbers) that is the
 * built-in table with the enterprise rate raised to BENCH_ORG_RPS. Dropped by `drop()`.
 */
export interface BenchTenant {
  databaseUrl: string;
  /** For every subject process: SUIGW_PLANS_FILE. */
  plansFile: string;
  /** A pool of this process on it, for in-process measurements; servers open their own. */
  database: Database;
  apiKey: string;
  drop(): Promise<void>;
}

async function writeBenchPlans(): Promise<{ file: string; remove: () => Promise<void> }> {
  const directory = await mkdtemp(join(tmpdir(), 'suigw-bench-plans-'));
  const plans = Object.fromEntries(Object.entries(PLANS).map(([id, { id: _id, ...numbers }]) => [id, numbers]));
  const file = join(directory, 'plans.json');
  await writeFile(file, JSON.stringify({ version: 1, plans: { ...plans, enterprise: { ...plans['enterprise'], orgRps: BENCH_ORG_RPS } } }));
  return { file, remove: () => rm(directory, { recursive: true, force: true }) };
}

export async function createBenchTenant(): Promise<BenchTenant> {
  const test = await createTestDatabase();
  const plans = await writeBenchPlans();
  try {
    const { organization, projects } = await createOrganization(test.database.db, systemClock, { name: 'Bench', tier: 'enterprise' });
    const key = await createKey(test.database, systemClock, { kind: 'operator' }, {
      organizationId: organization.id,
      projectId: projects[0]!.id,
      name: 'bench',
      scopes: ['data', 'manage'],
      expiresInDays: 1,
    });
    return {
      databaseUrl: test.url, plansFile: plans.file, database: test.database, apiKey: key.apiKey,
      drop: async () => {
        await test.drop();
        await plans.remove();
      },
    };
  } catch (error) {
    await test.drop();
    await plans.remove();
    throw error;
  }
}
