import type { JsonRpcMethod } from '../../method.js';
import { BUILDER_METHODS } from './builders.js';
import { EVENT_METHODS } from './event-reads.js';
import { EXECUTION_METHODS } from './execution.js';
import { SUBSCRIPTION_HTTP_METHODS } from './subscriptions/http-answers.js';
import { TRANSACTION_READ_METHODS } from './transaction-reads.js';

/**
 * The JSON-RPC gateway's transaction, event, execution, builder and subscription methods
 * (subscriptions are served over the WebSocket of `/v1/jsonrpc`; over HTTP they answer as a node does).
 */
export const TRANSACTION_METHODS: readonly JsonRpcMethod[] = [
  ...TRANSACTION_READ_METHODS, ...EVENT_METHODS, ...EXECUTION_METHODS, ...BUILDER_METHODS, ...SUBSCRIPTION_HTTP_METHODS,
];

export { jsonRpcWebSocketCapability, registerJsonRpcWebSocket, type JsonRpcWebSocketOptions } from './subscriptions/websocket-route.js';
export { CheckpointFeed, CheckpointFeeds } from './subscriptions/checkpoint-feed.js';
