import type { Logger } from '../core/index.js';
import { SuiUpstream } from './sui-upstream.js';
import { defaultUpstreamPolicy, type Network, type Upstream, type UpstreamEndpoints, type UpstreamPolicy } from './types.js';

export interface UpstreamSetConfig {
  networks: Partial<Record<Network, UpstreamEndpoints>>;
  policy?: Partial<UpstreamPolicy>;
  /** The process's logger: each upstream reports its breakers' openings and closings there. */
  logger: Logger;
}

/** One client set per configured network. Networks without URLs have no upstream (404 there). */
export function createUpstreamSet(config: UpstreamSetConfig): Map<Network, Upstream> {
  const policy = { ...defaultUpstreamPolicy, ...config.policy };
  const set = new Map<Network, Upstream>();
  for (const [network, endpoints] of Object.entries(config.networks) as [Network, UpstreamEndpoints | undefined][]) {
    if (endpoints) set.set(network, new SuiUpstream({ network, endpoints, policy, logger: config.logger }));
  }
  return set;
}

/** The client set of the configured networks that have both upstream URLs. */
export function upstreamSetFromConfig(config: {
  networks: readonly Network[];
  endpoints: Readonly<Record<Network, { grpcUrl: string | undefined; graphqlUrl: string | undefined }>>;
  upstream: Omit<UpstreamPolicy, 'retryBaseDelayMs' | 'retryMaxDelayMs' | 'healthTimeoutMs' | 'maxConcurrentCalls' | 'maxQueuedCalls' | 'maxConcurrentCallsPerTenant' | 'maxQueuedCallsPerTenant' | 'requestFanOut'> & Partial<UpstreamPolicy>;
}, logger: Logger): Map<Network, Upstream> {
  const networks: Partial<Record<Network, UpstreamEndpoints>> = {};
  for (const network of config.networks) {
    const { grpcUrl, graphqlUrl } = config.endpoints[network];
    if (grpcUrl && graphqlUrl) networks[network] = { grpcUrl, graphqlUrl };
  }
  return createUpstreamSet({ networks, policy: config.upstream, logger });
}

export async function closeUpstreamSet(set: ReadonlyMap<Network, Upstream>): Promise<void> {
  await Promise.all([...set.values()].map((upstream) => upstream.close()));
}
