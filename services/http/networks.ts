import { withoutQueryKey, type Config, type Network } from '../core/index.js';

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

/**
 * Where a legacy request (no network in its address) goes: the mainnet equivalent, with the same
 * path and query but never the `api_key` parameter (a `Location` is logged and cached by clients
 * and proxies). With hosts configured that is the mainnet host; otherwise the `/mainnet` prefix.
 */
export function legacyRedirectTarget(config: Config, requestUrl: string, forwardedProto: string | undefined): string {
  const url = withoutQueryKey(requestUrl);
  const mainnetHost = config.endpoints.mainnet.host;
  if (mainnetHost) {
    const scheme = forwardedProto === 'http' ? 'http' : 'https';
    return `${scheme}://${mainnetHost}${url}`;
  }
  return `/mainnet${url}`;
}

/** The public base URL of one network's REST/JSON-RPC/GraphQL endpoints. */
export function networkBaseUrl(config: Config, network: Network, listeningUrl: string): string {
  const host = config.endpoints[network].host;
  if (host) return `https://${host}`;
  return `${config.publicUrl ?? listeningUrl}/${network}`;
}
