import type { Network } from '../core/index.js';
import type { Principal } from '../identity/index.js';
import type { Upstream } from '../upstream/index.js';
import type { ReadCache } from './read-cache.js';

/**
 * The contract between the JSON-RPC gateway (parsing, params, batches, errors, transports) and
 * the methods it serves. A method translates one legacy Sui JSON-RPC call into gRPC v2 / GraphQL
 * calls on the request's upstream and renders the result in the legacy JSON-RPC shape.
 */

/** The JSON-RPC 2.0 error codes the gateway answers with. */
export const JSONRPC_ERROR = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** Upstream failures (the `data` member carries the gateway's code, e.g. UPSTREAM_TIMEOUT). */
  serverError: -32000,
  /** One call's answer over the response size bound (jsonrpsee's OVERSIZED_RESPONSE_CODE). */
  responseTooBig: -32008,
  /** A batch's answer over the response size bound (jsonrpsee's TOO_BIG_BATCH_RESPONSE_CODE). */
  batchResponseTooBig: -32011,
} as const;

/** A failure a method reports to its caller as a JSON-RPC error object. */
export class JsonRpcError extends Error {
  readonly code: number;
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = 'JsonRpcError';
    this.code = code;
    this.data = data;
  }
}

/**
 * The upstream failed or answered nonsense: -32000 with the gateway's code in `data` (the
 * JSON-RPC form of a 5xx: not the caller's fault, and not charged).
 */
export function upstreamFailure(detail: string, code: 'UPSTREAM_BAD_RESPONSE' | 'UPSTREAM_UNAVAILABLE'): JsonRpcError {
  return new JsonRpcError(JSONRPC_ERROR.serverError, `Server error: ${detail}`, { code });
}

/**
 * Our pagination cursors: opaque, signed strings (legacy cursors cannot be reused upstream).
 * `decode` throws `JsonRpcError(invalidParams)` for a cursor that is not ours, was made for
 * another method, or has expired.
 */
export interface JsonRpcCursors {
  encode(method: string, state: unknown): string;
  decode<T>(method: string, cursor: string): T;
  /**
   * A method's `cursor` param: absent or null is the first page (undefined), our string is its
   * state, anything else (a legacy node's numeric cursor) is -32602 `INVALID_CURSOR`, never a
   * silent restart from the first page.
   */
  decodeParam<T>(method: string, cursor: unknown): T | undefined;
}

/** What a method may use while it serves one call. */
export interface JsonRpcContext {
  network: Network;
  /** The network's upstream bound to this request (its one budget and its cancel signal). */
  upstream: Upstream;
  principal: Principal;
  cursors: JsonRpcCursors;
  /** The network's kept upstream reads (read-cache.ts): only what cannot change, or a short TTL where it can. */
  cache: ReadCache;
  /** The one clock (ms since the epoch). */
  now(): number;
}

export interface JsonRpcMethod {
  /** As in the OpenRPC document, e.g. `suix_getBalance`. */
  name: string;
  /** What it translates to, for the generated method table in docs (e.g. `gRPC StateService.GetBalance`). */
  translatesTo: string;
  /** Result fields v2 data cannot fill, and what we answer instead, for the same table. */
  unfilled?: readonly string[];
  /**
   * Serves one call. `params` are named (positional params already mapped to the OpenRPC
   * document's param names) and valid against the document's param schemas; absent optional
   * params are absent keys. Returns the JSON-RPC `result` value.
   */
  handle(params: Readonly<Record<string, unknown>>, context: JsonRpcContext): Promise<unknown>;
}
