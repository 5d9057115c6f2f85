import type { GatewayIR } from '../ir.js';
import { clusters, endpoints } from './clusters.js';
import type { FilterContext } from './http-filters.js';
import { listeners, routeConfigurations, type ListenerOptions } from './listeners.js';
import { RATELIMIT_DOMAIN } from './rate-limit-descriptors.js';
import type { EnvoySnapshot } from './snapshot.js';

export type TranslateOptions = ListenerOptions;

export const DEFAULT_TRANSLATE_OPTIONS: TranslateOptions = Object.freeze({ listenerPort: 8080, trustedProxyHops: 0 });

/**
 * The second translation stage, IR → Envoy resources: pure and deterministic (sorted output, no
 * clock, no I/O), versioned by the IR's content hash, so equal IRs give byte-equal snapshots.
 */
export function translateToEnvoy(ir: GatewayIR, options: TranslateOptions = DEFAULT_TRANSLATE_OPTIONS): EnvoySnapshot {
  const context: FilterContext = { backends: ir.backends, ratelimitDomain: RATELIMIT_DOMAIN };
  return {
    version: ir.version,
    listeners: listeners(ir, context, options),
    routes: routeConfigurations(ir, context),
    clusters: clusters(ir),
    endpoints: endpoints(ir),
  };
}
