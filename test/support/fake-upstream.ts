import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { adaptService } from '@protobuf-ts/grpc-backend';
import { RpcError } from '@protobuf-ts/runtime-rpc';
import { GrpcTypes } from '@mysten/sui/grpc';

export type FakeBehaviour = 'ok' | 'slow' | 'error' | 'not_found';

/**
 * A controllable stand-in for an upstream: a grpc-js LedgerService (GetServiceInfo, GetObject)
 * and a GraphQL endpoint, each switchable between answering, hanging, and failing. For
 * failure tests of the upstream layer; simnet is the realistic upstream.
 */
export async function startFakeUpstream() {
  const state = { behaviour: 'ok' as FakeBehaviour, calls: 0, slowMs: 10_000 };
  const answer = async <T>(value: T): Promise<T> => {
    state.calls += 1;
    if (state.behaviour === 'slow') await new Promise((resolve) => setTimeout(resolve, state.slowMs));
    if (state.behaviour === 'error') throw new RpcError('boom', 'INTERNAL');
    if (state.behaviour === 'not_found') throw new RpcError('no such thing', 'NOT_FOUND');
    return value;
  };
  const ledger = {
    getServiceInfo: () => answer({ chainId: '4btiuiMPvEENsttpZC7CZ53DruC3MAgfznDbASZ7DR6S', chain: 'simnet', epoch: 1n, checkpointHeight: 42n }),
    getObject: (req: { objectId?: string }) => answer({ object: { objectId: req.objectId, version: 1n } }),
  };
  const unimplemented = Object.fromEntries(GrpcTypes.LedgerService.methods.map((m) => [m.localName, () => { throw new RpcError('not in fake', 'UNIMPLEMENTED'); }]));
  const server = new Server();
  const [definition, handlers] = adaptService(GrpcTypes.LedgerService, { ...unimplemented, ...ledger });
  server.addService(definition, handlers);
  const grpcPort = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, port) => (err ? reject(err) : resolve(port))));

  const timers = new Set<NodeJS.Timeout>();
  const graphql = http.createServer((req, res) => {
    state.calls += 1;
    req.resume();
    if (state.behaviour === 'slow') {
      const t = setTimeout(() => { timers.delete(t); res.end('{}'); }, state.slowMs);
      timers.add(t);
      return;
    }
    if (state.behaviour === 'error') {
      res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ errors: [{ message: 'boom' }] }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: { chainIdentifier: 'abc' } }));
  });
  await new Promise<void>((resolve) => graphql.listen(0, '127.0.0.1', resolve));
  const graphqlPort = (graphql.address() as AddressInfo).port;

  return {
    state,
    grpcUrl: `http://127.0.0.1:${grpcPort}`,
    graphqlUrl: `http://127.0.0.1:${graphqlPort}/graphql`,
    async stop() {
      for (const t of timers) clearTimeout(t);
      server.forceShutdown();
      graphql.closeAllConnections();
      await new Promise<void>((resolve) => graphql.close(() => resolve()));
    },
  };
}
