import { JSONRPC_ERROR } from './method.js';

/** JSON-RPC 2.0 envelopes (https://www.jsonrpc.org/specification), as the wire carries them. */

export type JsonRpcId = string | number | null;

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export type JsonRpcResponse =
  | { jsonrpc: '2.0'; id: JsonRpcId; result: unknown }
  | { jsonrpc: '2.0'; id: JsonRpcId; error: JsonRpcErrorObject };

/** One well-formed call; `id` absent means a notification (it gets no response). */
export interface JsonRpcCall {
  method: string;
  params: unknown;
  id?: JsonRpcId;
}

/** The standard messages; our messages add a detail after a colon ("Invalid params: ..."). */
export const STANDARD_MESSAGES: Record<number, string> = {
  [JSONRPC_ERROR.parseError]: 'Parse error',
  [JSONRPC_ERROR.invalidRequest]: 'Invalid Request',
  [JSONRPC_ERROR.methodNotFound]: 'Method not found',
  [JSONRPC_ERROR.invalidParams]: 'Invalid params',
  [JSONRPC_ERROR.internalError]: 'Internal error',
  [JSONRPC_ERROR.serverError]: 'Server error',
  // jsonrpsee's texts, as a Sui node's JSON-RPC server sends them (no detail after them: see response-size.ts).
  [JSONRPC_ERROR.responseTooBig]: 'Response is too big',
  [JSONRPC_ERROR.batchResponseTooBig]: 'The batch response was too large',
};

export function errorResponse(id: JsonRpcId, error: JsonRpcErrorObject): JsonRpcResponse {
  return { jsonrpc: '2.0', id, error };
}

export function resultResponse(id: JsonRpcId, result: unknown): JsonRpcResponse {
  return { jsonrpc: '2.0', id, result };
}

function isId(value: unknown): value is JsonRpcId {
  return value === null || typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

/**
 * A call as the wire sent it, or the -32600 answer it earns. An object with a bad member still
 * has its `id` echoed when that id itself is valid (null otherwise, as the specification says).
 */
export function readCall(value: unknown): { call: JsonRpcCall } | { invalid: JsonRpcResponse } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { invalid: invalidRequest(null, 'a request must be an object') };
  }
  const request = value as Record<string, unknown>;
  const hasId = Object.hasOwn(request, 'id');
  if (hasId && !isId(request.id)) return { invalid: invalidRequest(null, '`id` must be a string, a number or null') };
  const id = hasId ? (request.id as JsonRpcId) : null;
  if (request.jsonrpc !== '2.0') return { invalid: invalidRequest(id, '`jsonrpc` must be "2.0"') };
  if (typeof request.method !== 'string') return { invalid: invalidRequest(id, '`method` must be a string') };
  // `params: null` is read as no params: some clients send it for methods that take none.
  const params = request.params ?? undefined;
  if (params !== undefined && typeof params !== 'object') {
    return { invalid: invalidRequest(id, '`params` must be an array or an object') };
  }
  return { call: { method: request.method, params, ...(hasId ? { id } : {}) } };
}

/** The -32600 a batch of `size` calls earns over any transport (empty, or over `max`), or undefined. */
export function batchRefusal(size: number, max: number): JsonRpcResponse | undefined {
  if (size === 0) return invalidRequest(null, 'empty batch');
  if (size > max) return invalidRequest(null, `a batch holds at most ${max} calls, got ${size}`);
  return undefined;
}

export function invalidRequest(id: JsonRpcId, detail: string): JsonRpcResponse {
  return errorResponse(id, { code: JSONRPC_ERROR.invalidRequest, message: `Invalid Request: ${detail}` });
}
