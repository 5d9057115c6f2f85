import type { Config, Network } from './config.js';

/**
 * A request's network comes from the address it was sent to: a configured host per network
 * (production), or the `/{network}` path prefix that works on any host (dev default). Routes
 * live under `/{network}/v1/...`; a host-selected request is rewritten to that form. Envoy's
 * ext_authz service maps its check requests with the same function.
 */
export function networkRewriter(config: Config): (request: RequestAddress) => string {
  const byHost = new Map<string, Network>();
  for (const network of config.networks) {
    const host = config.endpoints[network].host;
    if (host) byHost.set(host, network);
  }
  return (request) => {
    const url = request.url ?? '/';
    if (byHost.size === 0) return url;
    const host = hostName(request.headers.host);
    const network = host ? byHost.get(host) : undefined;
    return network ? `/${network}${url}` : url;
  };
}

/** What the rewrite reads of a request (Node's IncomingMessage, or an ext_authz check request). */
export interface RequestAddress {
  url?: string | undefined;
  headers: { host?: string | undefined };
}

function hostName(hostHeader: string | undefined): string | undefined {
  if (!hostHeader) return undefined;
  return hostHeader.replace(/:\d+$/, '').toLowerCase();
}
