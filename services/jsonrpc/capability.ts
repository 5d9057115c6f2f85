import type { FastifyReply, FastifyRequest } from 'fastify';
import { CursorCodec, errorResponses, type Logger } from '../core/index.js';
import type { RequestPipeline } from '../pipeline/index.js';
import { cancelRequestUpstream, requestUpstream, watchRequest, type App, type Capability } from '../route-contract/index.js';
import type { UpstreamSet } from '../upstream/index.js';
import { NetworkCursors } from './cursors.js';
import { JsonRpcDispatcher } from './dispatcher.js';
import type { JsonRpcContext, JsonRpcMethod } from './method.js';
import { JsonRpcAnswerDoc, JsonRpcBodyDoc } from './openapi-schemas.js';
import { ReadCaches, type ReadCacheInstruments, type ReadCacheLimits } from './read-cache.js';

export interface JsonRpcCapabilityOptions {
  methods: readonly JsonRpcMethod[];
  upstreams: UpstreamSet;
  /** Sizes a batch's charge: one credit per call (see docs/jsonrpc.md, Metering). */
  pipeline: RequestPipeline;
  /** HMAC secret of the methods' cursors (derived from SUIGW_SECRET). */
  cursorSecret: string;
  cursorMaxAgeSeconds: number;
  /** Bounds and TTL of the per-network cache of upstream reads (docs/jsonrpc.md, Caches). */
  cache: ReadCacheLimits;
  /** Where the cache counts its hits, misses and size. */
  metrics?: ReadCacheInstruments;
  /** The one clock (ms since the epoch). */
  now: () => number;
  maxBatchSize?: number;
  /** Bytes of one answer, a batch's whole answer included (docs/jsonrpc.md, Response size). */
  maxResponseBytes?: number;
  logger?: Pick<Logger, 'error'>;
}

/** One credit per call (OPERATION_COSTS: "JSON-RPC request (any method)", per request). */
const CALL_COST = 1;

/**
 * `POST /v1/jsonrpc`: Sui's JSON-RPC by translation to gRPC v2 / GraphQL (never forwarded to an
 * upstream JSON-RPC). Authentication, limits and metering run before the handler like on every
 * data route, so their refusals keep the spec's HTTP status and code; everything after is
 * JSON-RPC, HTTP 200 with error objects (no response at all, 204, when every call was a
 * notification).
 */
export function jsonRpcCapability(options: JsonRpcCapabilityOptions): Capability {
  const dispatcher = new JsonRpcDispatcher({
    methods: options.methods, maxBatchSize: options.maxBatchSize, maxResponseBytes: options.maxResponseBytes, logger: options.logger,
  });
  const codec = new CursorCodec({ secret: options.cursorSecret, maxAgeSeconds: options.cursorMaxAgeSeconds, now: options.now });
  const caches = new ReadCaches({ limits: options.cache, now: options.now, ...(options.metrics ? { instruments: options.metrics } : {}) });

  const handle = async (request: FastifyRequest, reply: FastifyReply) => {
    const parsed = dispatcher.parse(request.body as Buffer | undefined);
    if (parsed.kind === 'refused') return reply.send(parsed.response);
    const ticket = request.meterTicket;
    if (parsed.items.length > 1) {
      const refusal = await options.pipeline.charge(ticket, { units: parsed.items.length });
      if (refusal) throw refusal;
    }
    let context: JsonRpcContext | undefined;
    // One context per HTTP request: a batch's calls share the request's upstream budget.
    const contextOf = (): JsonRpcContext => (context ??= {
      network: request.network,
      upstream: requestUpstream(options.upstreams, request),
      // Authenticated before the handler runs (auth: {scope: 'data'}).
      principal: request.principal!,
      cursors: new NetworkCursors(codec, request.network),
      cache: caches.of(request.network),
      now: options.now,
    });
    // A batch already over the size bound stops the calls still waiting on the upstream.
    const result = await dispatcher.run(parsed, contextOf, () => cancelRequestUpstream(request));
    await options.pipeline.charge(ticket, { units: result.billable });
    if (result.body === undefined) return reply.code(204).send();
    // Serialized by the dispatcher, call by call, within the bound: sent as it is.
    return reply.type('application/json; charset=utf-8').send(result.body);
  };

  return async (app: App) => {
    await app.register(async (scope: App) => {
      scope.addHook('onRequest', watchRequest);
      // Our own body handling: bytes that are not JSON are JSON-RPC's -32700, not the REST 400.
      scope.removeContentTypeParser('application/json');
      scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
      scope.post('/v1/jsonrpc', {
        config: { auth: { scope: 'data' }, cost: CALL_COST, protocol: 'jsonrpc', queryKey: true },
        schema: {
          tags: ['gateways'],
          summary: 'JSON-RPC 2.0 (Sui JSON-RPC by translation)',
          description: 'Sui\'s JSON-RPC method set (docs/jsonrpc.md), single calls and batches; one credit per call. ' +
            'JSON-RPC errors are HTTP 200 with an `error` object; 204 when every call was a notification. ' +
            'Subscriptions: the WebSocket of the same path.',
          body: JsonRpcBodyDoc,
          response: { 200: JsonRpcAnswerDoc, ...errorResponses(401, 403, 429) },
        },
        // The schemas above document the envelope; the dispatcher reads the raw bytes itself
        // (not JSON: -32700, not a request: -32600), and the answer is JSON-RPC's own.
        validatorCompiler: () => (data: unknown) => ({ value: data }),
        serializerCompiler: () => (data: unknown) => JSON.stringify(data),
      }, handle);
    });
  };
}
