import type { JsonRpcMethod } from '../../method.js';
import { BUILDER_METHODS } from './builders.js';
import { EVENT_METHODS } from './event-reads.js';
import { EXECUTION_METHODS } from './execution.js';
import { TRANSACTION_READ_METHODS } from './transaction-reads.js';

/**
 * The JSON-RPC gateway's transaction, event, execution and builder methods (POST /v1/jsonrpc).
 * The subscriptions are not among them: like a node (jsonrpsee), the HTTP endpoint does not know
 * them (-32601 Method not found); the WebSocket of `/v1/jsonrpc` serves them (services/jsonrpc/subscriptions/).
 */
export const TRANSACTION_METHODS: readonly JsonRpcMethod[] = [
  ...TRANSACTION_READ_METHODS, ...EVENT_METHODS, ...EXECUTION_METHODS, ...BUILDER_METHODS,
];

