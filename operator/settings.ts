import type { Config } from '../services/core/index.js';
import type { BackendCluster, BackendRole } from './ir.js';
import type { TranslationSettings } from './translate/types.js';

/**
 * The ports the roles listen on in the cluster (each role's default: gateway PORT 8080, grpc
 * SUIGW_GRPC_PORT 9090, authz and ratelimit `--port` 9001 and 9002, streams 8090), reached through
 * their Services (`<prefix>-<role>.<namespace>.svc`): the chart (charts/suigw) creates them.
 */
export const BACKEND_PORTS: Record<BackendRole, { port: number; protocol: BackendCluster['protocol']; timeoutMs: number }> = {
  gateway: { port: 8080, protocol: 'http1', timeoutMs: 15_000 },
  grpc: { port: 9090, protocol: 'http2', timeoutMs: 15_000 },
  // Envoy's defaults for ext_authz (200 ms) and the rate limit filter (20 ms), NOTES.md.
  authz: { port: 9001, protocol: 'http2', timeoutMs: 200 },
  ratelimit: { port: 9002, protocol: 'http2', timeoutMs: 20 },
  streams: { port: 8090, protocol: 'http1', timeoutMs: 15_000 },
};

/** The public hosts of one network, as the chart's networks.json (`--networks`) lists them. */
export interface NetworkHosts {
  httpHosts?: string[];
  grpcHosts?: string[];
}

export interface OperatorSettingsOptions {
  /** Services are named `<prefix>-<role>` (the Helm release's full name); default `suigw`. */
  servicePrefix?: string;
  /** Hosts per network; absent: SUIGW_<NETWORK>_HOST and SUIGW_<NETWORK>_GRPC_HOST. */
  networks?: Partial<Record<string, NetworkHosts>>;
}

export function operatorSettings(config: Readonly<Config>, options: OperatorSettingsOptions = {}): Omit<TranslationSettings, 'now'> {
  const { namespace } = config.operator;
  const prefix = options.servicePrefix ?? 'suigw';
  const backends = Object.fromEntries(
    (Object.keys(BACKEND_PORTS) as BackendRole[]).map((role) => {
      const { port, protocol, timeoutMs } = BACKEND_PORTS[role];
      return [role, { name: `suigw-${role}`, protocol, endpoints: [{ address: `${prefix}-${role}.${namespace}.svc`, port }], timeoutMs }];
    }),
  ) as Record<BackendRole, BackendCluster>;
  return {
    namespace,
    image: config.operator.image,
    envSecret: config.operator.envSecret,
    ...(config.operator.envConfigMap ? { envConfigMap: config.operator.envConfigMap } : {}),
    eventsPerWorker: config.operator.eventsPerWorker,
    maxStreamWorkers: config.operator.maxStreamWorkers,
    streamsResources: config.operator.streamsResources,
    billingResources: config.operator.billingResources,
    backends,
    hosts: config.networks.map((network) => {
      const listed = options.networks?.[network];
      if (listed) return { network, http: [...(listed.httpHosts ?? [])], grpc: [...(listed.grpcHosts ?? [])] };
      // Without a list: the network's host (SUIGW_<NETWORK>_HOST) serves HTTP, and gRPC too unless
      // the gRPC proxy has a host of its own (SUIGW_<NETWORK>_GRPC_HOST); Envoy routes by path.
      const host = config.endpoints[network].host;
      const grpcHost = config.grpc.hosts[network] ?? host;
      return { network, http: host ? [host] : [], grpc: grpcHost ? [grpcHost] : [] };
    }),
  };
}
