import { PIPELINE, type PipelineStage } from '../../services/pipeline/index.js';
import type { GatewayIR } from '../ir.js';
import { duration, type EnvoyResource } from './snapshot.js';
import { ANY } from './type-urls.js';

/** What a filter's config is built from. */
export interface FilterContext {
  backends: GatewayIR['backends'];
  ratelimitDomain: string;
}

/** One Envoy HTTP filter: a module behind one interface, placed by the table below. */
export interface HttpFilterModule {
  /** Envoy's filter name. */
  name: string;
  /** The in-process pipeline stage it performs behind Envoy, or null for an Envoy-only protocol filter. */
  stage: PipelineStage['name'] | null;
  /**
   * Proxyless gRPC clients implement the router only and NACK a listener naming any other filter
   * unless it is `is_optional` (they then skip it: the grpc role's in-process pipeline applies).
   */
  optionalForProxyless: boolean;
  typedConfig(context: FilterContext): Record<string, unknown>;
}

const extAuthz: HttpFilterModule = {
  name: 'envoy.filters.http.ext_authz',
  stage: 'authenticate',
  optionalForProxyless: true,
  typedConfig: ({ backends }) => ({
    '@type': ANY.extAuthz,
    transport_api_version: 'V3',
    grpc_service: { envoy_grpc: { cluster_name: backends.authz.name }, timeout: duration(backends.authz.timeoutMs) },
    // Fail closed: no answer from the authz service is a refusal, never a free pass.
    failure_mode_allow: false,
    // An unreachable authz service is an outage (503), not a verdict on the key (403).
    status_on_error: { code: 'ServiceUnavailable' },
  }),
};

const rateLimit: HttpFilterModule = {
  name: 'envoy.filters.http.ratelimit',
  stage: 'limit',
  optionalForProxyless: true,
  typedConfig: ({ backends, ratelimitDomain }) => ({
    '@type': ANY.rateLimit,
    domain: ratelimitDomain,
    timeout: duration(backends.ratelimit.timeoutMs),
    // Fail open, as the in-process limiter does when Redis is down (docs/metering.md).
    failure_mode_deny: false,
    // Envoy's own X-RateLimit-* stay off: its Reset is a duration, the spec's is Unix seconds; the
    // rate limit service and the gateway set all five headers themselves (docs/envoy.md).
    rate_limited_as_resource_exhausted: true,
    rate_limit_service: { grpc_service: { envoy_grpc: { cluster_name: backends.ratelimit.name } }, transport_api_version: 'V3' },
  }),
};

const router: HttpFilterModule = {
  name: 'envoy.filters.http.router',
  stage: 'handle',
  optionalForProxyless: false,
  typedConfig: () => ({ '@type': ANY.router }),
};

/** Envoy-only filters: they adapt the protocol for the handler, so they sit just before the router. */
const BEFORE_HANDLER: readonly HttpFilterModule[] = [
  { name: 'envoy.filters.http.grpc_web', stage: null, optionalForProxyless: true, typedConfig: () => ({ '@type': ANY.grpcWeb }) },
  { name: 'envoy.filters.http.cors', stage: null, optionalForProxyless: true, typedConfig: () => ({ '@type': ANY.cors }) },
];

const BY_ENVOY_NAME = new Map([extAuthz, rateLimit, router].map((filter) => [filter.name, filter]));

/**
 * THE filter chain, in order, derived from the in-process pipeline (services/pipeline):
 * each stage that names an Envoy HTTP filter contributes its module in the pipeline's order, and
 * the Envoy-only protocol filters go right before the handler. A stage naming an HTTP filter we
 * have no module for stops the process at load, so the two orders cannot drift apart.
 */
export const HTTP_FILTER_CHAIN: readonly HttpFilterModule[] = Object.freeze(
  PIPELINE.flatMap((stage) => {
    if (!stage.envoy.startsWith('envoy.filters.http.')) return [];
    const filter = BY_ENVOY_NAME.get(stage.envoy);
    if (!filter) throw new Error(`pipeline stage ${stage.name} names ${stage.envoy}, which has no xDS filter module`);
    return stage.name === 'handle' ? [...BEFORE_HANDLER, filter] : [filter];
  }),
);

export type FilterAudience = 'envoy' | 'proxyless';

/** The HttpConnectionManager's `http_filters`. Envoy gets every filter as required (fail closed). */
export function httpFilters(context: FilterContext, audience: FilterAudience): EnvoyResource[] {
  return HTTP_FILTER_CHAIN.map((filter) => ({
    name: filter.name,
    typed_config: filter.typedConfig(context),
    ...(audience === 'proxyless' && filter.optionalForProxyless ? { is_optional: true } : {}),
  }));
}
