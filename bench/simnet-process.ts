import net from 'node:net';
import { startSimnet } from '../test/simnet/index.js';

// simnet's gRPC port mux accepts sockets without TCP_NODELAY, so each unary answer (headers,
// message, trailers in separate writes) waits ~40 ms for the client's delayed ACK (Nagle). That
// floor would swamp the overhead being measured; set NODELAY on every accepted socket here.
// (Reported as a simnet gap; remove once the mux sets it.)
if (process.env['BENCH_SIMNET_NAGLE'] !== '1') {
  const emit = net.Server.prototype.emit as (this: net.Server, event: string | symbol, ...args: unknown[]) => boolean;
  net.Server.prototype.emit = function patched(this: net.Server, event: string | symbol, ...args: unknown[]): boolean {
    const socket = args[0];
    // Only real TCP sockets: the mux also feeds in-memory duplex pairs to its HTTP/2 session.
    if (event === 'connection' && socket instanceof net.Socket && typeof socket.setNoDelay === 'function' && socket.remotePort !== undefined) socket.setNoDelay(true);
    return emit.call(this, event, ...args);
  } as typeof net.Server.prototype.emit;
}

/** simnet in its own process, so the upstream's CPU is not the benchmarked process's CPU. Prints its URLs as one JSON line. */
const simnet = await startSimnet({ seed: 'bench', transactionsPerCheckpoint: 0 });
const alice = simnet.accounts.find((a) => a.label === 'alice')!.address;
console.log(JSON.stringify({ grpcUrl: simnet.grpcUrl, graphqlUrl: simnet.graphqlUrl, owner: alice }));
const stop = () => void simnet.stop().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
