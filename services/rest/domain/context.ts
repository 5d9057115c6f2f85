import type { Network, Upstream } from '../../upstream/index.js';

/** What a domain call needs to know about the request: which network, through which upstream. */
export interface NetworkContext {
  network: Network;
  upstream: Upstream;
}
