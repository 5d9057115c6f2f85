import { parentPort } from 'node:worker_threads';
import { createLogger, flushLogger, systemClock } from '../core/index.js';
import { unopenedDatabase } from '../db/index.js';
import { gatewayRouteDeclarations } from './gateway-routes.js';
import { readConfig } from './runtime.js';

// The body of the worker thread route-table.ts starts: it builds the gateway and streams apps
// from the same environment as the role, posts their route table and ends, and its heap with it.
const config = readConfig();
const logger = createLogger(config.logLevel);
const database = unopenedDatabase('the route table worker');
try {
  parentPort!.postMessage(await gatewayRouteDeclarations({ config, database, clock: systemClock, logger }));
} finally {
  await database.close();
  flushLogger(logger);
}
