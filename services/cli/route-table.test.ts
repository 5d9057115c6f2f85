import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/support/test-database.js';
import { createLogger, systemClock } from '../core/index.js';
import { gatewayRouteDeclarations } from './gateway-routes.js';
import { routeTableFromWorker } from './route-table.js';
import { readConfig } from './runtime.js';

describe('the route table suigw authz builds in a worker thread', () => {
  let test: TestDatabase;
  beforeAll(async () => {
    test = await createTestDatabase();
  });
  afterAll(async () => test.drop());

  it('is the table the gateway and streams roles register, built on a real database in this thread', async () => {
    const config = readConfig();
    const inThisThread = await gatewayRouteDeclarations({ config, database: test.database, clock: systemClock, logger: createLogger('silent') });
    const fromWorker = await routeTableFromWorker();
    expect(fromWorker).toEqual(inThisThread);
    // Not vacuous: the public routes of every network, each with its access rule and cost.
    expect(fromWorker).toContainEqual({ method: 'GET', url: '/mainnet/v1/auth/me', auth: 'key', queryKey: false, cost: 'free' });
    expect(fromWorker).toContainEqual({ method: 'HEAD', url: '/testnet/v1/warp/:id/stream', auth: { scope: 'streams' }, queryKey: true, cost: 1 });
  }, 60_000);
});
