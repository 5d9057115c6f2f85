import type { Clock, Config, Logger } from '../core/index.js';
import type { Database } from '../db/index.js';
import type { RouteDeclaration } from '../envoy/index.js';
import { registeredRoutes } from '../http/index.js';
import type { AccessRule, Authenticator } from '../identity/index.js';
import type { RouteCost } from '../metering/index.js';
import { buildGatewayApp } from './gateway-app.js';

/**
 * The gateway's route table as data, for the Envoy-facing services: the composition root builds
 * the gateway exactly as `suigw gateway` does (never listening; building reads nothing from the
 * database and calls no upstream), reads every registered route's declarations and closes it.
 * So authz decides on the very routes the gateway serves, with their `auth` and `cost`.
 */
export async function gatewayRouteDeclarations(deps: {
  config: Readonly<Config>;
  database: Database;
  clock: Clock;
  logger: Logger;
  authenticator: Authenticator;
}): Promise<RouteDeclaration[]> {
  // The in-memory limiter: the app is never served, it must not connect to Redis.
  const config: Readonly<Config> = { ...deps.config, redisUrl: undefined };
  const app = await buildGatewayApp({ ...deps, config });
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
