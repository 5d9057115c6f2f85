import { isApiError, type CursorCodec } from '../core/index.js';
import { JSONRPC_ERROR, JsonRpcError, type JsonRpcCursors } from './method.js';

/**
 * The JSON-RPC methods' cursors: the shared signed codec (services/core/cursor.ts), scoped to
 * the method and the request's network; a cursor that is not ours, was made for another method
 * or network, or has expired is -32602 with `data: {code: 'INVALID_CURSOR'}`. A method that must
 * also tie a cursor to its query puts the query in its state and compares it.
 */
export class NetworkCursors implements JsonRpcCursors {
  readonly #codec: CursorCodec;
  readonly #network: string;

  constructor(codec: CursorCodec, network: string) {
    this.#codec = codec;
    this.#network = network;
  }

  encode(method: string, state: unknown): string {
    return this.#codec.encode({ kind: `jsonrpc:${method}`, network: this.#network, query: '' }, JSON.stringify(state));
  }

  decode<T>(method: string, cursor: string): T {
    try {
      return JSON.parse(this.#codec.decode({ kind: `jsonrpc:${method}`, network: this.#network, query: '' }, cursor)) as T;
    } catch (error) {
      if (isApiError(error)) throw new JsonRpcError(JSONRPC_ERROR.invalidParams, `Invalid params: ${error.message}`, { code: error.code });
      throw error;
    }
  }

  decodeParam<T>(method: string, cursor: unknown): T | undefined {
    if (cursor === undefined || cursor === null) return undefined;
    if (typeof cursor !== 'string') {
      throw new JsonRpcError(JSONRPC_ERROR.invalidParams, 'Invalid params: the cursor is not one this gateway returned (pass nextCursor as given)', { code: 'INVALID_CURSOR' });
    }
    return this.decode<T>(method, cursor);
  }
}
