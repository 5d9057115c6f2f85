import { isIP } from 'node:net';
import type { BackendCluster, BackendRole, GatewayIR } from '../ir.js';
import { byResourceName, duration, type EnvoyResource } from './snapshot.js';
import { ANY } from './type-urls.js';

const CONNECT_TIMEOUT_MS = 1000;
const ROLES: readonly BackendRole[] = ['authz', 'gateway', 'grpc', 'ratelimit', 'streams'];

/**
 * EDS needs IP literals (neither Envoy nor proxyless gRPC resolve names in an assignment), so a
 * backend given by IPs (pod or ClusterIP addresses) is an EDS cluster fed over ADS, and one given
 * by DNS names (a Service's name) is a STRICT_DNS cluster Envoy resolves itself.
 */
function servedByEds(backend: BackendCluster): boolean {
  return backend.endpoints.every((endpoint) => isIP(endpoint.address) !== 0);
}

export function loadAssignment(backend: BackendCluster): EnvoyResource {
  const lbEndpoints = backend.endpoints.map((endpoint) => ({
    endpoint: { address: { socket_address: { address: endpoint.address, port_value: endpoint.port } } },
  }));
  return {
    cluster_name: backend.name,
    // A locality without load_balancing_weight is skipped by gRPC's weighted-target policy.
    endpoints: lbEndpoints.length === 0 ? [] : [{ locality: { region: 'suigw' }, load_balancing_weight: { value: 1 }, lb_endpoints: lbEndpoints }],
  };
}

function cluster(backend: BackendCluster): EnvoyResource {
  const discovery = servedByEds(backend)
    ? { type: 'EDS', eds_cluster_config: { eds_config: { ads: {}, resource_api_version: 'V3' } } }
    : { type: 'STRICT_DNS', load_assignment: loadAssignment(backend) };
  return {
    name: backend.name,
    ...discovery,
    connect_timeout: duration(CONNECT_TIMEOUT_MS),
    lb_policy: 'ROUND_ROBIN',
    ...(backend.protocol === 'http2'
      ? {
          typed_extension_protocol_options: {
            'envoy.extensions.upstreams.http.v3.HttpProtocolOptions': {
              '@type': ANY.httpProtocolOptions,
              explicit_http_config: { http2_protocol_options: {} },
            },
          },
        }
      : {}),
  };
}

/** One cluster per backend role, sorted by name. */
export function clusters(ir: GatewayIR): EnvoyResource[] {
  return ROLES.map((role) => cluster(ir.backends[role])).sort(byResourceName);
}

/** ClusterLoadAssignments of the EDS clusters, sorted by cluster name. */
export function endpoints(ir: GatewayIR): EnvoyResource[] {
  return ROLES.map((role) => ir.backends[role])
    .filter(servedByEds)
    .map(loadAssignment)
    .sort(byResourceName);
}
