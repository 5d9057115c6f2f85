import { ManualClock, createLogger, loadConfig, type Config } from '../../services/core/index.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';
import { createKey, createOrganization, type Scope } from '../../services/identity/index.js';
import { type Tier } from '../../services/plans/index.js';
import { buildGatewayApp, type GatewayAppOptions } from '../../services/cli/gateway-app.js';
import type { App } from '../../services/route-contract/index.js';
import { openPipeline, type OpenedPipeline } from '../../services/pipeline/index.js';

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
  /** The request pipeline, when the test asked to share it (`sharedPipeline`). */
  pipeline: OpenedPipeline | undefined;
  close(): Promise<void>;
}

export const ALL_SCOPES: Scope[] = ['data', 'streams', 'manage', 'zkLogin'];

export async function createTestApp(
  options: {
    env?: Record<string, string>;
    tier?: Tier;
    extra?: Partial<GatewayAppOptions>;
    /**
     * Opens the pipeline here and hands it to the app, as `suigw dev` shares one between its
     * adapters: the test's other adapters (the gRPC proxy) and the test itself (flushing usage to
     * read a charge) reach the same limiter, ledger and usage recorder.
     */
    sharedPipeline?: boolean;
  } = {},
): Promise<TestApp> {
  // The in-process app shares its event loop with the test's own clients, simnet and servers, so
  // the loop's delay measures the test and the machine's load, not the gateway: shedding by it
  // would make tests depend on the machine's speed. Its own test sets a threshold
  // (services/http/load-shedding.error.test.ts); the journeys run real processes at shipped settings.
  const config = loadConfig({ LOG_LEVEL: 'silent', SUIGW_SHED_MAX_EVENT_LOOP_DELAY_MS: '0', ...options.env });
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
  const logger = createLogger('silent');
  const pipeline = options.sharedPipeline ? await openPipeline({ config, database: db.database, clock: options.extra?.clock ?? clock, logger }) : undefined;
  const app = await buildGatewayApp({ config, database: db.database, clock, logger, ...(pipeline ? { pipeline } : {}), ...options.extra });
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
    pipeline,
    async close() {
      await app.close();
      await pipeline?.close();
      await db.drop();
    },
  };
}
