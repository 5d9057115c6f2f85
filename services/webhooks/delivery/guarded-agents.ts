import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { isAddressAllowed, isHostAllowed } from '../definitions/endpoint-address.js';

/** The error a refused connection fails with; `describe` in the endpoint client reads its code. */
export class AddressNotAllowedError extends Error {
  readonly code = 'ADDRESS_NOT_ALLOWED';
  constructor() {
    super('address not allowed (private, loopback or reserved)');
  }
}

/** How a name becomes addresses: the system resolver (`dns.lookup`, all addresses) unless a test says otherwise. */
export type Resolve = (hostname: string, callback: (error: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void) => void;

const systemResolve: Resolve = (hostname, callback) => dns.lookup(hostname, { all: true }, callback);

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/**
 * A lookup that refuses any resolved address the URL rule would refuse (the same function as at
 * creation), so a name whose DNS answer changed after the URL was accepted cannot lead inward.
 */
function guardedLookup(allowedAddresses: readonly string[], resolve: Resolve) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    resolve(hostname, (error, addresses) => {
      if (error) return callback(error, '');
      const [first] = addresses;
      if (first === undefined || addresses.some(({ address }) => !isAddressAllowed(address, allowedAddresses))) {
        return callback(new AddressNotAllowedError(), '');
      }
      if (options.all) return callback(null, addresses);
      return callback(null, first.address, first.family);
    });
  };
}

/**
 * How long a kept-alive connection to a receiver may sit idle before we close it. Node's agent
 * honours a receiver's `Keep-Alive: timeout=N` hint (closing a second before it) only when the
 * agent has a timeout of its own that is longer, so without one it keeps connections the receiver
 * has already closed (a Node server's 5 s, the schedule's first retry) and writes into them.
 * While a delivery is in flight this timeout only emits an event: the attempt's deadline rules.
 */
export const IDLE_CONNECTION_MS = 30_000;

/** A socket that never connects and fails at once, which the request reports as its error. */
function refusedSocket(): net.Socket {
  const socket = new net.Socket();
  process.nextTick(() => socket.destroy(new AddressNotAllowedError()));
  return socket;
}

type Connect = (error: Error | null, stream: Duplex) => void;

/**
 * Connection-time half of the SSRF rule: a literal host (in any spelling) is checked before
 * connecting, a name on each address it resolves to. Both agents keep connections alive.
 */
export function guardedAgents(allowedAddresses: readonly string[], resolve: Resolve = systemResolve): { http: http.Agent; https: https.Agent } {
  const lookup = guardedLookup(allowedAddresses, resolve);
  const allowed = (host: string | null | undefined) => host === undefined || host === null || isHostAllowed(host, allowedAddresses);
  class GuardedHttpAgent extends http.Agent {
    override createConnection(options: http.ClientRequestArgs, callback?: Connect): Duplex | null | undefined {
      return allowed(options.host) ? super.createConnection({ ...options, lookup } as http.ClientRequestArgs, callback) : refusedSocket();
    }
  }
  class GuardedHttpsAgent extends https.Agent {
    override createConnection(options: https.RequestOptions, callback?: Connect): Duplex | null | undefined {
      return allowed(options.host) ? super.createConnection({ ...options, lookup } as https.RequestOptions, callback) : refusedSocket();
    }
  }
  const options = { keepAlive: true, timeout: IDLE_CONNECTION_MS };
  return { http: new GuardedHttpAgent(options), https: new GuardedHttpsAgent(options) };
}
