import type { App, Capability } from '../route-contract/index.js';
import type { CatalogDeps } from './deps.js';
import { registerCatalogEvents } from './routes/catalog.events.js';
import { registerCatalogProtocols } from './routes/catalog.protocols.js';

export { EventCatalog, CATALOG_NETWORKS, type CatalogEvent, type CatalogNetwork, type CatalogProtocol } from './catalog.js';
export { fieldSchema, normalizeMoveType } from './move-types.js';
export type { CatalogDeps } from './deps.js';

/** The catalog (`/v1/catalog/protocols`, `/v1/catalog/events`, data scope, 1 credit), registered once per network. */
export function catalogCapability(deps: CatalogDeps): Capability {
  return (app: App) => {
    registerCatalogProtocols(app, deps);
    registerCatalogEvents(app, deps);
  };
}
