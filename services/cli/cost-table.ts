import { createLogger, loadConfig, systemClock } from '../core/index.js';
import { openDatabase } from '../db/index.js';
import { costTable, type DeclaredRouteCost } from '../metering/index.js';
import { buildGatewayApp } from './gateway-app.js';

/**
 * docs/costs.md: built from the cost every route declares (`config.cost`) as the composition
 * root registers them, so the document cannot drift from the routes.
 */
export async function generateCostTable(): Promise<string> {
  const routes: DeclaredRouteCost[] = [];
  // Building the app reads nothing from the database: an empty embedded one will do.
  const database = await openDatabase({ dataDir: 'memory://' });
  try {
    const config = loadConfig({ LOG_LEVEL: 'silent', SUIGW_NETWORKS: 'mainnet' });
    const app = await buildGatewayApp({
      config,
      database,
      clock: systemClock,
      logger: createLogger('silent'),
      onRouteCost: (route) => routes.push(route),
    });
    await app.ready();
    await app.close();
  } finally {
    await database.close();
  }
  return costTable(routes);
}
