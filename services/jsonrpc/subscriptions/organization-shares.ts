import { ORGANIZATION_FILTER_LIMITS } from '../../streams/index.js';
import { JSONRPC_ERROR, JsonRpcError } from '../method.js';
import { filterLimitExceeded } from './filter-budget.js';

/**
 * What one organization may hold on the live JSON-RPC WebSockets of one process. Every
 * transaction of the feed is matched against every subscription of every socket (and its events
 * rendered once per socket), so these bound what one tenant adds to each transaction's cost for
 * all: bytes alone did not, as thousands of tiny filters fit in them.
 */
export interface OrganizationLimits {
  maxSockets: number;
  maxSubscriptions: number;
  maxFilterBytes: number;
}

/** One socket's part of its organization's share: held while the socket lives. */
export interface OrganizationSocketShare {
  /** Takes one subscription of `bytes`, or throws the -32602 naming the organization's limit it would pass. */
  holdSubscription(bytes: number): void;
  releaseSubscription(bytes: number): void;
  /** The socket is gone (idempotent); its subscriptions are released one by one by their session. */
  close(): void;
}

interface Held {
  sockets: number;
  subscriptions: number;
  bytes: number;
}

/** The sockets, subscriptions and filter bytes each organization holds in this process. */
export class OrganizationShares {
  readonly limits: OrganizationLimits;
  readonly #held = new Map<string, Held>();

  /** The counts come from the config (SUIGW_JSONRPC_WS_MAX_*_PER_ORGANIZATION); the bytes are the filter limits'. */
  constructor(limits: Omit<OrganizationLimits, 'maxFilterBytes'> & Partial<Pick<OrganizationLimits, 'maxFilterBytes'>>) {
    this.limits = { maxFilterBytes: ORGANIZATION_FILTER_LIMITS.maxBytes, ...limits };
  }

  /** A new socket's share, or undefined when the organization already has `maxSockets` open. */
  openSocket(organization: string): OrganizationSocketShare | undefined {
    const held = this.#held.get(organization) ?? { sockets: 0, subscriptions: 0, bytes: 0 };
    if (held.sockets >= this.limits.maxSockets) return undefined;
    held.sockets += 1;
    this.#held.set(organization, held);
    let open = true;
    return {
      holdSubscription: (bytes) => {
        if (held.subscriptions >= this.limits.maxSubscriptions) throw tooManySubscriptions(this.limits.maxSubscriptions);
        if (held.bytes + bytes > this.limits.maxFilterBytes) {
          throw filterLimitExceeded('bytesPerOrganization', this.limits.maxFilterBytes, 'bytes over the organization\'s subscriptions');
        }
        held.subscriptions += 1;
        held.bytes += bytes;
      },
      releaseSubscription: (bytes) => {
        held.subscriptions -= 1;
        held.bytes -= bytes;
        this.#forgetIfEmpty(organization, held);
      },
      close: () => {
        if (!open) return;
        open = false;
        held.sockets -= 1;
        this.#forgetIfEmpty(organization, held);
      },
    };
  }

  #forgetIfEmpty(organization: string, held: Held): void {
    // The entry stays while anything is held: shares of live sockets keep writing to it.
    if (held.sockets === 0 && held.subscriptions === 0) this.#held.delete(organization);
  }
}

function tooManySubscriptions(max: number): JsonRpcError {
  return new JsonRpcError(JSONRPC_ERROR.invalidParams, `Invalid params: at most ${max} subscriptions per organization`, {
    code: 'TOO_MANY_SUBSCRIPTIONS', limit: 'subscriptionsPerOrganization', max,
  });
}
