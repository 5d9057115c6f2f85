import type { App, Capability } from '../route-contract/index.js';
import type { WarpDeliveryDeps } from './delivery/connection.js';
import { StreamPresence } from './delivery/stream-presence.js';
import { registerWarpRoutes } from './delivery/warp.routes.js';
import type { StreamDefinitionDeps } from './routes/deps.js';
import { registerCreateStream } from './routes/streams.create.js';
import { registerDeleteStream } from './routes/streams.delete.js';
import { registerReadStreams } from './routes/streams.read.js';
import { registerUpdateStream } from './routes/streams.update.js';

export * from './definitions/filters.js';
export * from './definitions/filter-limits.js';
export { findStream, listNetworkStreams, type StreamDefinition, type StreamOwner } from './definitions/store.js';
export { announceDefinitionChange } from './definitions/versions.js';
export { fromCheckpointSchema } from './routes/schemas.js';
export type { StreamDefinitionDeps } from './routes/deps.js';

/** Stream definitions (`/v1/streams`, manage scope), registered once per network. */
export function streamDefinitionsCapability(deps: StreamDefinitionDeps): Capability {
  return (app: App) => {
    registerCreateStream(app, deps);
    registerReadStreams(app, deps);
    registerUpdateStream(app, deps);
    registerDeleteStream(app, deps);
  };
}

export type { MatchConsumer, MatchTarget } from './ingest/match-consumer.js';
export type { AppendedEvent } from './log/stream-log.js';
export { startWarpRuntime, type WarpRuntime, type WarpRuntimeOptions } from './warp-runtime.js';
export type { WarpDeliveryDeps };
export { WARP_COSTS } from './delivery/warp-charges.js';
export { BUFFER_MAX_AGE_MS, BUFFER_MAX_EVENTS, type StreamLog } from './log/stream-log.js';

/** Warp delivery (`/v1/warp/{id}/ws` and `/v1/warp/{id}/stream`, streams scope), registered once per network. */
export function warpDeliveryCapability(deps: WarpDeliveryDeps): Capability {
  // One watch on deleted streams for every network scope of the process.
  const delivery = { ...deps, presence: new StreamPresence(deps.database) };
  return (app: App) => registerWarpRoutes(app, delivery);
}
