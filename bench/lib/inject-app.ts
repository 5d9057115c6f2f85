/**
 * The bench's gateway app (configuration from `env` as the roles read it, the database, the
 * upstream set, `buildGatewayApp`, plus `GET /bench/noop`), not listening: gateway-server.ts
 * puts it on a port; in-process measurements through `app.inject()` (bench/lib/inject-ab.ts), which leave the
 * sockets out and so price the gateway's own per-request work alone.
 */
import { createLogger, flushLogger, systemClock } from '../../services/core/index.js';
import { readConfig } from '../../services/cli/runtime.js';
import { openDatabase } from '../../services/db/index.js';
import { buildGatewayApp } from '../../services/cli/gateway-app.js';
import { closeUpstreamSet, upstreamSetFromConfig } from '../../services/upstream/index.js';
import type { App } from '../../services/route-contract/index.js';
import { registerBenchNoop } from './bench-noop.js';

export interface InjectableGateway {
  app: App;
  close(): Promise<void>;
}

export async function buildInjectableGateway(env: NodeJS.ProcessEnv): Promise<InjectableGateway> {
  // As the roles start: the plans file (SUIGW_PLANS_FILE) is put in force too.
  const config = readConfig({ ...env, PORT: '0', HOST: '127.0.0.1' });
  if (!config.databaseUrl) throw new Error('DATABASE_URL is required (a migrated PostgreSQL database)');
  const logger = createLogger(config.logLevel);
  const database = await openDatabase({ url: config.databaseUrl });
  const upstreams = upstreamSetFromConfig(config, logger);
  const app = await buildGatewayApp({ config, database, clock: systemClock, logger, upstreams });
  registerBenchNoop(app);
  await app.ready();
  return {
    app,
    close: async () => {
      await app.close();
      await closeUpstreamSet(upstreams);
      await database.close();
      flushLogger(logger);
    },
  };
}
