import { withoutQueryKey, type Config, type Network } from '../core/index.js';

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
