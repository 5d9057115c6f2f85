import { createLogger, loadConfig, systemClock } from '../core/index.js';
import { openDatabase } from '../db/index.js';
import { costTable, type DeclaredRouteCost } from '../metering/index.js';
import { startWarpRuntime } from '../streams/index.js';
import { buildGatewayApp } from './gateway-app.js';
import { buildStreamsApp } from './streams-app.js';

/**
 * docs/costs.md: built from the cost every route declares (`config.cost`) as the composition
 * roots of `suigw gateway` and `suigw streams` register them, so the document cannot drift from
 * the routes.
 */
export async function generateCostTable(): Promise<string> {
  const routes: DeclaredRouteCost[] = [];
  // Building the app reads nothing from the database: an empty embedded one will do.
  const database = await openDatabase({ dataDir: 'memory://' });
  try {
    const config = loadConfig({ LOG_LEVEL: 'silent', SUIGW_NETWORKS: 'mainnet' });
    const deps = { config, database, clock: systemClock, logger: createLogger('silent'), onRouteCost: (route: DeclaredRouteCost) => routes.push(route) };
    const gateway = await buildGatewayApp(deps);
    await gateway.ready();
    await gateway.close();
    const warp = await startWarpRuntime({ redisUrl: undefined, database, clock: systemClock, logger: deps.logger, upstreams: new Map(), ingest: false });
    const streams = await buildStreamsApp({ ...deps, warp });
    await streams.ready();
    await streams.close();
    await warp.close();
  } finally {
    await database.close();
  }
  return costTable(routes);
}
