import type { App, Capability } from '../route-contract/index.js';
import type { StreamDefinitionDeps } from './routes/deps.js';
import { registerCreateStream } from './routes/streams.create.js';
import { registerDeleteStream } from './routes/streams.delete.js';
import { registerReadStreams } from './routes/streams.read.js';
import { registerUpdateStream } from './routes/streams.update.js';

export * from './definitions/filters.js';
export { findStream, listNetworkStreams, type StreamDefinition, type StreamOwner } from './definitions/store.js';
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
