import type { Clock, Config, Logger } from '../core/index.js';
import type { Database } from '../db/index.js';
import type { RouteDeclaration } from '../envoy/index.js';
import { registeredRoutes } from '../http/index.js';
import type { AccessRule } from '../identity/index.js';
import type { RouteCost } from '../metering/index.js';
import type { App } from '../route-contract/index.js';
import { startWarpRuntime } from '../streams/index.js';
import { buildGatewayApp } from './gateway-app.js';
import { buildStreamsApp } from './streams-app.js';

/**
 * The public route table as data, for the Envoy-facing services: the composition root builds
 * the gateway exactly as `suigw gateway` does and the streams app as `suigw streams` does (never
 * listening; building reads nothing from the database and calls no upstream), reads every
 * registered route's declarations and closes them. So authz decides on the very routes the two
 * roles serve (Envoy sends `/v1/warp/` to `streams`), with their `auth` and `cost`.
 */
export async function gatewayRouteDeclarations(deps: {
  config: Readonly<Config>;
  database: Database;
  clock: Clock;
  logger: Logger;
}): Promise<RouteDeclaration[]> {
  // The in-memory limiter and stream log: the apps are never served, they must not connect to Redis.
  const config: Readonly<Config> = { ...deps.config, redisUrl: undefined };
  const warp = await startWarpRuntime({ redisUrl: undefined, database: deps.database, clock: deps.clock, logger: deps.logger, upstreams: new Map(), ingest: false });
  try {
    const { database, clock, logger } = deps;
    const gateway = await declarationsOf(await buildGatewayApp({ database, clock, logger, config }));
    const streams = await declarationsOf(await buildStreamsApp({ database, clock, logger, config, warp }));
    const seen = new Set(gateway.map((route) => `${route.method} ${route.url}`));
    return [...gateway, ...streams.filter((route) => !seen.has(`${route.method} ${route.url}`))];
  } finally {
    await warp.close();
  }
}

async function declarationsOf(app: App): Promise<RouteDeclaration[]> {
  try {
    await app.ready();
    return registeredRoutes(app).flatMap((route) =>
      [route.method].flat().map((method) => ({
        method: method.toUpperCase(),
        url: route.url,
        auth: route.config?.auth as AccessRule | undefined,
        queryKey: route.config?.queryKey === true,
        cost: route.config?.cost as RouteCost | undefined,
      })),
    );
  } finally {
    await app.close();
  }
}
