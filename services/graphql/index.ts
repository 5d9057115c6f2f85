import type { App, Capability } from '../route-contract/index.js';
import type { UpstreamSet } from '../upstream/index.js';
import { registerGraphQL } from './graphql.route.js';
import { PersistedQueries } from './persisted-queries.js';
import type { QueryLimits } from './query-guard.js';

export { checkQuery, DEFAULT_QUERY_LIMITS, type QueryLimits, type QueryShape } from './query-guard.js';
export { PersistedQueries, sha256 } from './persisted-queries.js';

/** Hashes kept for automatic persisted queries, per process. */
const PERSISTED_QUERY_CAPACITY = 1_000;

/** `POST /v1/graphql`, registered once per network (inside the `/{network}` scope). */
export function graphqlCapability(deps: { upstreams: UpstreamSet; limits: QueryLimits }): Capability {
  const persisted = new PersistedQueries(PERSISTED_QUERY_CAPACITY);
  return async (app: App) => {
    await app.register(async (scope: App) => registerGraphQL(scope, { ...deps, persisted }), { prefix: '/v1' });
  };
}
