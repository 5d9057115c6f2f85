import type { CursorCodec, Network } from '../core/index.js';
import type { CatalogNetwork, EventCatalog } from './catalog.js';

/** What the catalog routes need; handed over by the composition root. */
export interface CatalogDeps {
  catalog: EventCatalog;
  /** Signs the pages' cursors (one codec for every list of the gateway). */
  cursors: CursorCodec;
  /** The catalog's view of a served network: `simnet` for networks whose upstream is simnet. */
  catalogNetworkOf(network: Network): CatalogNetwork;
}
