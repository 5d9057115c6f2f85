import type { GatewayIR, NetworkIR } from '../ir.js';
import { corsPolicy } from './cors-policy.js';
import { httpFilters, type FilterAudience, type FilterContext } from './http-filters.js';
import { rateLimits } from './rate-limit-descriptors.js';
import { byResourceName, duration, type EnvoyResource } from './snapshot.js';
import { ANY } from './type-urls.js';

export interface ListenerOptions {
  /** The public HTTP/gRPC port of Envoy's listener. */
  listenerPort: number;
  /** Proxies in front of Envoy that append to X-Forwarded-For (a cloud load balancer: 1). */
  trustedProxyHops: number;
}

/** Envoy's listener and the proxyless gRPC listeners share this route configuration. */
export const ROUTE_CONFIG_NAME = 'suigw-public';
export const PUBLIC_LISTENER_NAME = 'suigw-public';
/** Warp streams (spec: WebSocket `/v1/warp/{id}/ws`, SSE `/v1/warp/{id}/stream`) go to the streams role. */
const WARP_PREFIX = '/v1/warp/';
const NO_TIMEOUT = duration(0);

const rds = { config_source: { ads: {}, resource_api_version: 'V3' }, route_config_name: ROUTE_CONFIG_NAME };

function connectionManager(context: FilterContext, audience: FilterAudience, options: ListenerOptions): Record<string, unknown> {
  const common = { '@type': ANY.httpConnectionManager, stat_prefix: 'suigw', rds, http_filters: httpFilters(context, audience) };
  if (audience === 'proxyless') return common;
  return {
    ...common,
    codec_type: 'AUTO',
    // Envoy is the edge: the peer (or X-Forwarded-For past trusted hops) is the visitor IP the per-IP limit counts.
    use_remote_address: { value: true },
    xff_num_trusted_hops: options.trustedProxyHops,
    // `Host: mainnet.api.example.com:443` matches the domain `mainnet.api.example.com`.
    strip_any_host_port: true,
    upgrade_configs: [{ upgrade_type: 'websocket' }],
  };
}

/**
 * Envoy's socket listener, plus one proxyless-gRPC API listener per gRPC host (the `xds:///HOST`
 * target names the listener), all sorted by name.
 */
export function listeners(ir: GatewayIR, context: FilterContext, options: ListenerOptions): EnvoyResource[] {
  const publicListener: EnvoyResource = {
    name: PUBLIC_LISTENER_NAME,
    address: { socket_address: { address: '0.0.0.0', port_value: options.listenerPort } },
    filter_chains: [
      { filters: [{ name: 'envoy.filters.network.http_connection_manager', typed_config: connectionManager(context, 'envoy', options) }] },
    ],
  };
  const proxyless = ir.networks
    .flatMap((network) => network.grpcHosts)
    .map((host) => ({ name: host, api_listener: { api_listener: connectionManager(context, 'proxyless', options) } }));
  return [publicListener, ...proxyless].sort(byResourceName);
}

/** Per-filter config that Envoy applies and proxyless clients may skip. */
function optionalFilterConfig(config: Record<string, unknown>): Record<string, unknown> {
  return { '@type': ANY.filterConfig, config, is_optional: true };
}

function virtualHost(network: NetworkIR, kind: 'http' | 'grpc', context: FilterContext): EnvoyResource | undefined {
  const domains = kind === 'http' ? network.httpHosts : network.grpcHosts;
  if (domains.length === 0) return undefined;
  const { backends } = context;
  const routes =
    kind === 'http'
      ? [
          { match: { prefix: WARP_PREFIX }, route: { cluster: backends.streams.name, timeout: duration(backends.streams.timeoutMs) } },
          { match: { prefix: '/' }, route: { cluster: backends.gateway.name, timeout: duration(backends.gateway.timeoutMs) } },
        ]
      : // Server-streaming calls (checkpoint subscriptions) live as long as the client wants.
        [{ match: { prefix: '/' }, route: { cluster: backends.grpc.name, timeout: NO_TIMEOUT } }];
  return {
    name: `${network.network}-${kind}`,
    domains: [...domains],
    routes,
    rate_limits: rateLimits(network.network),
    typed_per_filter_config: { 'envoy.filters.http.cors': optionalFilterConfig(corsPolicy(network.corsOrigins, kind === 'grpc')) },
  };
}

export function routeConfigurations(ir: GatewayIR, context: FilterContext): EnvoyResource[] {
  const virtualHosts = ir.networks.flatMap((network) =>
    (['http', 'grpc'] as const).map((kind) => virtualHost(network, kind, context)).filter((host) => host !== undefined),
  );
  return [{ name: ROUTE_CONFIG_NAME, virtual_hosts: virtualHosts }];
}
