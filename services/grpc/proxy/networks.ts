import type { Network } from '../../core/index.js';

/**
 * The network a gRPC call is for, from the authority the client dialled: the host configured
 * for a network (SUIGW_<NETWORK>_GRPC_HOST), else mainnet (spec: hosts without a network go to
 * mainnet). A key of another network is then refused with NETWORK_MISMATCH.
 */
export function networkByAuthority(hosts: Readonly<Partial<Record<Network, string | undefined>>>): (authority: string | undefined) => Network {
  const byHost = new Map<string, Network>();
  for (const [network, host] of Object.entries(hosts)) if (host) byHost.set(host.toLowerCase(), network as Network);
  return (authority) => {
    const host = authority?.replace(/:\d+$/, '').toLowerCase();
    return (host && byHost.get(host)) || 'mainnet';
  };
}
