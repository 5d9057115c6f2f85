import { READ_METHODS, type JsonRpcMethod } from '../jsonrpc/index.js';
import { TRANSACTION_METHODS } from '../jsonrpc/methods/transactions/index.js';

/** The JSON-RPC methods the gateway serves (the composition root and docs/jsonrpc.md read this list). */
export const SERVED_JSONRPC_METHODS: readonly JsonRpcMethod[] = [...READ_METHODS, ...TRANSACTION_METHODS];
