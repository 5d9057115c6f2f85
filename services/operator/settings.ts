import type { Config } from '../core/index.js';
import type { BackendCluster, BackendRole } from './ir.js';
import type { TranslationSettings } from './translate/types.js';

/**
 * The ports the roles listen on in the cluster, reached through their Services
 * (`suigw-<role>.<namespace>.svc`): the chart (charts/suigw) creates Services with these names.
 */
export const BACKEND_PORTS: Record<BackendRole, { port: number; protocol: BackendCluster['protocol']; timeoutMs: number }> = {
  gateway: { port: 8080, protocol: 'http1', timeoutMs: 15_000 },
  grpc: { port: 9090, protocol: 'http2', timeoutMs: 15_000 },
  // Envoy's defaults for ext_authz (200 ms) and the rate limit filter (20 ms), NOTES.md.
  authz: { port: 9191, protocol: 'http2', timeoutMs: 200 },
  ratelimit: { port: 8081, protocol: 'http2', timeoutMs: 20 },
  streams: { port: 8090, protocol: 'http1', timeoutMs: 15_000 },
};

export function operatorSettings(config: Readonly<Config>): Omit<TranslationSettings, 'now'> {
  const { namespace } = config.operator;
  const backends = Object.fromEntries(
    (Object.keys(BACKEND_PORTS) as BackendRole[]).map((role) => {
      const { port, protocol, timeoutMs } = BACKEND_PORTS[role];
      return [role, { name: `suigw-${role}`, protocol, endpoints: [{ address: `suigw-${role}.${namespace}.svc`, port }], timeoutMs }];
    }),
  ) as Record<BackendRole, BackendCluster>;
  return {
    namespace,
    image: config.operator.image,
    eventsPerWorker: config.operator.eventsPerWorker,
    maxStreamWorkers: config.operator.maxStreamWorkers,
    backends,
    // One host per network (SUIGW_<NETWORK>_HOST) serves HTTP and gRPC alike: Envoy routes by path.
    hosts: config.networks.map((network) => {
      const host = config.endpoints[network].host;
      return { network, http: host ? [host] : [], grpc: host ? [host] : [] };
    }),
  };
}
