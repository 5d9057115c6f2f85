import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { adaptService } from '@protobuf-ts/grpc-backend';
import { RpcError, type ServerCallContext } from '@protobuf-ts/runtime-rpc';
import { GrpcTypes } from '@mysten/sui/grpc';

/**
 * `slow` hangs for `slowMs`; `delay` answers after `delayMs`; the status behaviours fail every
 * gRPC call with that status (`error` is INTERNAL); `graphql_error_beside_data` answers GraphQL
 * with data and an error next to it; `http_503` fails GraphQL with HTTP 503.
 */
export type FakeBehaviour =
  | 'ok' | 'slow' | 'delay' | 'error' | 'not_found'
  | 'unavailable' | 'invalid_argument' | 'out_of_range' | 'unimplemented' | 'unknown' | 'resource_exhausted' | 'aborted'
  | 'graphql_error_beside_data' | 'http_503';

const STATUS: Partial<Record<FakeBehaviour, string>> = {
  error: 'INTERNAL', unavailable: 'UNAVAILABLE', not_found: 'NOT_FOUND', invalid_argument: 'INVALID_ARGUMENT', out_of_range: 'OUT_OF_RANGE',
  unimplemented: 'UNIMPLEMENTED', unknown: 'UNKNOWN', resource_exhausted: 'RESOURCE_EXHAUSTED', aborted: 'ABORTED',
};

/**
 * A controllable stand-in for an upstream: a grpc-js LedgerService (GetServiceInfo, GetObject)
 * and a GraphQL endpoint, each switchable between answering, hanging, and failing. For
 * failure tests of the upstream layer; simnet is the realistic upstream.
 */
export async function startFakeUpstream() {
  /** `cancelled` counts calls the client cancelled (gRPC cancel or a dropped GraphQL request) before the answer. */
  const state = {
    behaviour: 'ok' as FakeBehaviour, calls: 0, cancelled: 0, inFlight: 0, maxInFlight: 0, slowMs: 10_000, delayMs: 100,
    /** gRPC methods (e.g. `GetObject`) that hang for `slowMs` whatever the behaviour: a node slow on some calls, answering others. */
    slowMethods: new Set<string>(),
  };
  /** Every GraphQL body received, in order (a test tells its own queries from the health probes'). */
  const graphqlBodies: string[] = [];
  /**
   * The same counts for one gRPC method alone, so a test can tell its own call from the gateway's
   * background health probes (GetServiceInfo and a GraphQL query on a timer).
   */
  const byMethod = new Map<string, { calls: number; cancelled: number }>();
  const countOf = (method: string) => {
    let count = byMethod.get(method);
    if (!count) byMethod.set(method, (count = { calls: 0, cancelled: 0 }));
    return count;
  };
  const wait = (ms: number, context: ServerCallContext) => new Promise<void>((resolve) => {
    const timer = setTimeout(() => { remove(); resolve(); }, ms);
    const remove = context.onCancel(() => { state.cancelled += 1; countOf(context.method.name).cancelled += 1; clearTimeout(timer); resolve(); });
  });
  const answer = async <T>(value: T, context: ServerCallContext): Promise<T> => {
    state.calls += 1;
    countOf(context.method.name).calls += 1;
    state.inFlight += 1;
    state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
    try {
      if (state.behaviour === 'slow' || state.slowMethods.has(context.method.name)) await wait(state.slowMs, context);
      if (state.behaviour === 'delay') await wait(state.delayMs, context);
      const status = STATUS[state.behaviour];
      if (status) throw new RpcError(status === 'INTERNAL' ? 'boom' : `fake ${status}`, status);
      return value;
    } finally {
      state.inFlight -= 1;
    }
  };
  const ledger = {
    getServiceInfo: (_req: unknown, context: ServerCallContext) =>
      answer({ chainId: '4btiuiMPvEENsttpZC7CZ53DruC3MAgfznDbASZ7DR6S', chain: 'simnet', epoch: 1n, checkpointHeight: 42n }, context),
    getObject: (req: { objectId?: string }, context: ServerCallContext) => answer({ object: { objectId: req.objectId, version: 1n } }, context),
    getCheckpoint: (req: { checkpointId: { oneofKind?: string; sequenceNumber?: bigint } }, context: ServerCallContext) =>
      answer({ checkpoint: { sequenceNumber: req.checkpointId.sequenceNumber ?? 42n, transactions: [] } }, context),
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
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => graphqlBodies.push(Buffer.concat(chunks).toString('utf8')));
    if (state.behaviour === 'slow') {
      const t = setTimeout(() => { timers.delete(t); res.end('{}'); }, state.slowMs);
      timers.add(t);
      res.once('close', () => { if (!res.writableFinished) { state.cancelled += 1; clearTimeout(t); timers.delete(t); } });
      return;
    }
    if (state.behaviour === 'http_503') {
      res.writeHead(503, { 'retry-after': '2' }).end();
      return;
    }
    if (state.behaviour === 'graphql_error_beside_data') {
      res.writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ data: { chainIdentifier: null }, errors: [{ message: 'field failed', path: ['chainIdentifier'] }] }));
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
    graphqlBodies,
    /** Calls and cancellations of one gRPC method (its protobuf name, e.g. `GetObject`). */
    method: (name: string) => ({ ...countOf(name) }),
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
