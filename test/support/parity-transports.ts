import * as http from 'node:http';
import * as grpc from '@grpc/grpc-js';
import WebSocket from 'ws';
import { ERRORS, type ErrorCode } from '../../services/core/index.js';
import { reflectionTypes } from '../../services/grpc/reflection/index.js';
import type { EnvoyStack } from './envoy-stack.js';
import type { GrpcProxyE2E } from './grpc-proxy-e2e.js';

/**
 * The transports of the pipeline parity test (test/e2e/pipeline-parity.test.ts), each reduced to
 * the transport-neutral view of its answer: `ok`, or the spec's code when it is on the wire, or
 * the quoted message for the failures the spec answers without a code (a missing or invalid key,
 * the organization-wide rate). The transport's own status must be the error table's, or the
 * answer shows the disagreement beside it.
 */
export type Observed = string;

/** Who calls: the browser Origin it sends and the local address it connects from (none: the transport's default). */
export interface Visitor {
  origin?: string;
  address?: string;
}

/** Requests and credits written to a key's usage. */
export interface Charge {
  requests: number;
  credits: number;
}

export interface ParityTransport {
  call(key: string | undefined, visitor?: Visitor): Promise<Observed>;
  /** What one admitted call charges with metering on (every call here costs one credit at admission). */
  admitted: Charge;
  /** Why this transport's client sends no Origin, when it sends none (then `visitor.origin` is not sent). */
  noOrigin?: string;
  /** Why the test cannot call from another visitor address on this transport (then `visitor.address` is not used). */
  fixedAddress?: string;
}

/** A second loopback address: Linux answers every 127/8 address on `lo`, so a client can connect from it. */
export const OTHER_VISITOR = '127.0.0.2';

const GRPC_NAMES = Object.fromEntries(Object.entries(grpc.status).filter(([, value]) => typeof value === 'number').map(([name, value]) => [value, name])) as Record<number, string>;

function neutral(code: string | undefined, message: string, agrees: (definition: (typeof ERRORS)[ErrorCode]) => boolean, raw: string): Observed {
  const definitions = code !== undefined ? [ERRORS[code as ErrorCode]].filter(Boolean) : Object.values(ERRORS).filter((candidate) => candidate.wire === false);
  const name = code ?? `"${message}"`;
  return definitions.some(agrees) ? name : `${name} (${raw})`;
}

export function httpForm(status: number, body: unknown): Observed {
  if (status < 400) return 'ok';
  const { code, error, message } = (body ?? {}) as { code?: string; error?: string; message?: string };
  // A disabled key's 401 says so in `message`; the organization-wide 429 has only `error`.
  return neutral(code, message ?? error ?? '', (definition) => definition.status === status, `HTTP ${status}`);
}

export function grpcForm(status: number, message: string): Observed {
  if (status === grpc.status.OK) return 'ok';
  const prefixed = /^([A-Z_]+): (.*)$/.exec(message);
  return neutral(prefixed?.[1], prefixed ? prefixed[2]! : message, (definition) => definition.grpc === status, `gRPC ${GRPC_NAMES[status]}`);
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function headersOf(key: string | undefined, visitor: Visitor | undefined): Record<string, string> {
  return { ...(key ? { 'x-api-key': key } : {}), ...(visitor?.origin ? { origin: visitor.origin } : {}) };
}

/**
 * One HTTP request with node's client rather than fetch: fetch cannot choose the local address.
 * `stream`: the answer is a stream (SSE); its status line is the decision, the stream is dropped.
 */
function httpCall(url: string, init: { method?: string; headers: Record<string, string>; body?: string; address?: string; stream?: boolean }): Promise<Observed> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: init.method ?? 'GET', headers: init.headers, ...(init.address ? { localAddress: init.address } : {}) }, (response) => {
      const status = response.statusCode ?? 0;
      if (init.stream && status === 200) {
        resolve('ok');
        request.destroy();
        return;
      }
      let text = '';
      response.on('data', (chunk: Buffer) => { text += String(chunk); });
      response.on('end', () => resolve(httpForm(status, parsed(text))));
    });
    request.on('error', (error) => (request.destroyed && init.stream ? undefined : reject(error)));
    request.end(init.body);
  });
}

/** A WebSocket upgrade: refused over HTTP (status and body), or closed with a refusal code (reason = the spec's code), or open. */
function upgrade(url: string, key: string | undefined, visitor: Visitor | undefined): Promise<Observed> {
  return new Promise<Observed>((resolve) => {
    const socket = new WebSocket(url, { headers: headersOf(key, visitor), ...(visitor?.address ? { localAddress: visitor.address } : {}) });
    socket.on('unexpected-response', (_request, response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => { text += String(chunk); });
      response.on('end', () => resolve(httpForm(response.statusCode ?? 0, parsed(text))));
    });
    socket.on('open', () => setTimeout(() => {
      if (socket.readyState === socket.OPEN) {
        socket.close();
        resolve('ok');
      }
    }, 300));
    // Past the pipeline (admitted): what the stream says next (another organization's stream,
    // one already connected) is the capability's answer, not the pipeline's.
    socket.on('close', (code, reason) => resolve([4001, 4003, 4029, 1008].includes(code) ? String(reason) || `WS ${code}` : 'ok'));
    socket.on('error', () => undefined);
  });
}

function reflection(host: string, key: string | undefined): Promise<Observed> {
  return new Promise<Observed>((resolve) => {
    const types = reflectionTypes('grpc.reflection.v1');
    const client = new grpc.Client(host, grpc.credentials.createInsecure());
    const metadata = new grpc.Metadata();
    if (key) metadata.set('x-api-key', key);
    const stream = client.makeBidiStreamRequest(
      '/grpc.reflection.v1.ServerReflection/ServerReflectionInfo',
      (request: Parameters<typeof types.Request.toBinary>[0]) => Buffer.from(types.Request.toBinary(request)),
      (bytes: Buffer) => types.Response.fromBinary(bytes),
      metadata,
    );
    stream.on('data', () => undefined);
    stream.on('error', () => undefined);
    stream.on('status', (status: grpc.StatusObject) => {
      client.close();
      resolve(grpcForm(status.code, status.details));
    });
    stream.write(types.Request.create({ host: '', messageRequest: { oneofKind: 'listServices', listServices: '' } }));
    stream.end();
  });
}

async function sdkCall(call: () => Promise<unknown>, decode: (message: string) => string): Promise<Observed> {
  try {
    await call();
    return 'ok';
  } catch (error) {
    const { code, message } = error as { code: string; message: string };
    return grpcForm(grpc.status[code as keyof typeof grpc.status] as number, decode(message));
  }
}

const ONE_CALL: Charge = { requests: 1, credits: 1 };
/**
 * A Warp connection to the key's own stream: the connect credit at admission, and minute 1 of
 * the connection charged as it opens (docs/streams.md, `WARP connection minute`), a usage row of
 * its own.
 */
const WARP_CONNECTION: Charge = { requests: 2, credits: 2 };

const GRPC_JS_ADDRESS = 'grpc-js has no option for the local address a channel connects from';
const NATIVE_NO_ORIGIN = 'a native gRPC client sends no Origin (spec, Authentication 6: it cannot use an origin-restricted key)';

/** The data-plane transports of one gateway (`base` = its mainnet URL), its gRPC proxy and a Warp stream. */
export function gatewayTransports(base: string, e2e: GrpcProxyE2E, streamId: string): Record<string, ParityTransport> {
  const ws = base.replace(/^http/, 'ws');
  const post = (path: string, body: unknown): ParityTransport => ({
    admitted: ONE_CALL,
    call: (key: string | undefined, visitor?: Visitor) => httpCall(`${base}${path}`, {
      method: 'POST', headers: { ...headersOf(key, visitor), 'content-type': 'application/json' }, body: JSON.stringify(body), address: visitor?.address,
    }),
  });
  return {
    'REST': { admitted: ONE_CALL, call: (key, visitor) => httpCall(`${base}/v1/chain`, { headers: headersOf(key, visitor), address: visitor?.address }) },
    'JSON-RPC HTTP': post('/v1/jsonrpc', { jsonrpc: '2.0', id: 1, method: 'sui_getChainIdentifier' }),
    'GraphQL': post('/v1/graphql', { query: '{ chainIdentifier }' }),
    'gRPC native': {
      admitted: ONE_CALL,
      call: (key) => sdkCall(() => e2e.native(key).ledgerService.getServiceInfo({}).response, (message) => message),
      noOrigin: NATIVE_NO_ORIGIN,
      fixedAddress: GRPC_JS_ADDRESS,
    },
    'gRPC-Web': {
      admitted: ONE_CALL,
      call: (key, visitor) => sdkCall(
        () => e2e.web(key, visitor?.origin).ledgerService.getServiceInfo({}).response,
        (message) => decodeURIComponent(message),
      ),
      fixedAddress: 'the SDK\'s gRPC-Web transport calls the global fetch, which cannot choose its local address',
    },
    'gRPC reflection': { admitted: ONE_CALL, call: (key) => reflection(e2e.host, key), noOrigin: NATIVE_NO_ORIGIN, fixedAddress: GRPC_JS_ADDRESS },
    'JSON-RPC WebSocket': { admitted: ONE_CALL, call: (key, visitor) => upgrade(`${ws}/v1/jsonrpc`, key, visitor) },
    'Warp WebSocket': { admitted: WARP_CONNECTION, call: (key, visitor) => upgrade(`${ws}/v1/warp/${streamId}/ws`, key, visitor) },
    'Warp SSE': { admitted: WARP_CONNECTION, call: (key, visitor) => httpCall(`${base}/v1/warp/${streamId}/stream`, { headers: headersOf(key, visitor), address: visitor?.address, stream: true }) },
  };
}

/** The REST read of test/support/envoy-stack.ts's fake upstream. */
export const ENVOY_PATH = `/mainnet/v1/objects/0x${'5'.repeat(64)}`;

/**
 * Envoy in front: ext_authz Check, the RLS's ShouldRateLimit with the visitor's address as its
 * `remote_address` descriptor, then the gateway trusting the signed identity (envoy-stack.ts's
 * `viaEnvoy`). The key is not forwarded past authz, so an admitted answer proves the trusted path.
 */
export function envoyTransport(stack: EnvoyStack): ParityTransport {
  return {
    admitted: ONE_CALL,
    call: async (key, visitor) => {
      const answer = await stack.viaEnvoy({ url: ENVOY_PATH, headers: headersOf(key, visitor), remoteAddress: visitor?.address ?? '127.0.0.1' });
      return httpForm(answer.status, answer.body);
    },
  };
}
