import type { App, Capability } from '../route-contract/index.js';
import type { Clock } from '../core/index.js';
import type { UpstreamSet } from '../upstream/index.js';
import { registerGraphQL } from './graphql.route.js';
import { IntrospectionCache, type IntrospectionCacheBounds } from './introspection-cache.js';
import { PersistedQueries, type PersistedQueryBounds } from './persisted-queries.js';
import type { QueryLimits } from './query-guard.js';

export { checkQuery, DEFAULT_QUERY_LIMITS, type QueryLimits, type QueryShape } from './query-guard.js';
export { PersistedQueries, sha256, type PersistedQueryBounds } from './persisted-queries.js';
export { IntrospectionCache } from './introspection-cache.js';

/**
 * Automatic persisted queries kept per process: 1,000 entries and 8 MiB over all organizations,
 * 1 MiB per organization (at least 64 queries of the 16 KiB maximum; one tenant's new queries
 * evict its own oldest).
 */
export const PERSISTED_QUERY_BOUNDS: PersistedQueryBounds = { maxEntries: 1_000, maxBytes: 8 * 1024 * 1024, maxBytesPerOrganization: 1024 * 1024 };

/** Introspection answers: 10 minutes, 16 distinct requests over all networks. */
export const INTROSPECTION_CACHE_BOUNDS: IntrospectionCacheBounds = { ttlMs: 10 * 60 * 1000, maxEntries: 16 };

/** `POST /v1/graphql`, registered once per network (inside the `/{network}` scope). */
export function graphqlCapability(deps: { upstreams: UpstreamSet; limits: QueryLimits; clock: Clock; persisted?: PersistedQueries }): Capability {
  const persisted = deps.persisted ?? new PersistedQueries(PERSISTED_QUERY_BOUNDS);
  const introspection = new IntrospectionCache(INTROSPECTION_CACHE_BOUNDS, deps.clock);
  return async (app: App) => {
    await app.register(async (scope: App) => registerGraphQL(scope, { upstreams: deps.upstreams, limits: deps.limits, persisted, introspection }), { prefix: '/v1' });
  };
}
