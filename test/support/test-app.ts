import { ManualClock, createLogger, loadConfig, type Config } from '../../services/core/index.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';
import { createKey, createOrganization, type Scope } from '../../services/identity/index.js';
import { type Tier } from '../../services/plans/index.js';
import { buildGatewayApp, type GatewayAppOptions } from '../../services/cli/gateway-app.js';
import type { App } from '../../services/route-contract/index.js';

/**
 * An unstarted app, at the shipped settings (key cache TTL included), on a fresh database of the machine's PostgreSQL, a manual clock, and one
 * seeded organization (mainnet + testnet projects) with an admin key. For tests only.
 */
export interface TestApp {
  app: App;
  clock: ManualClock;
  config: Readonly<Config>;
  db: TestDatabase;
  organizationId: string;
  projects: { mainnet: string; testnet: string };
  adminKey: string;
  adminKeyId: string;
  close(): Promise<void>;
}

export const ALL_SCOPES: Scope[] = ['data', 'streams', 'manage', 'zkLogin'];

export async function createTestApp(
  options: { env?: Record<string, string>; tier?: Tier; extra?: Partial<GatewayAppOptions> } = {},
): Promise<TestApp> {
  const config = loadConfig({ LOG_LEVEL: 'silent', ...options.env });
  const clock = new ManualClock();
  const db = await createTestDatabase();
  const seeded = await createOrganization(db.database.db, clock, {
    name: 'Acme',
    tier: options.tier ?? 'team',
    projects: [
      { name: 'Default', network: 'mainnet' },
      { name: 'Staging', network: 'testnet' },
    ],
  });
  const [mainnet, testnet] = seeded.projects;
  const admin = await createKey(db.database, clock, { kind: 'operator' }, {
    organizationId: seeded.organization.id,
    projectId: mainnet!.id,
    name: 'admin',
    scopes: ALL_SCOPES,
    expiresInDays: 365,
  });
  const app = await buildGatewayApp({ config, database: db.database, clock, logger: createLogger('silent'), ...options.extra });
  await app.ready();
  return {
    app,
    clock,
    config,
    db,
    organizationId: seeded.organization.id,
    projects: { mainnet: mainnet!.id, testnet: testnet!.id },
    adminKey: admin.apiKey,
    adminKeyId: admin.id,
    async close() {
      await app.close();
      await db.drop();
    },
  };
}
