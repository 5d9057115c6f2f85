import { JSONRPC_ERROR, JsonRpcError, type JsonRpcMethod } from '../../../method.js';

/**
 * Over plain HTTP a Sui node (jsonrpsee) does not serve subscriptions: the call is answered
 * -32601 "Method not found". We answer the same code and say where the method is served.
 */
function websocketOnly(name: string): JsonRpcMethod {
  return {
    name,
    translatesTo: 'WebSocket only (GET /v1/jsonrpc upgrade): gRPC SubscriptionService.SubscribeCheckpoints, one shared stream per network',
    handle: async () => {
      throw new JsonRpcError(JSONRPC_ERROR.methodNotFound, `Method not found: ${name} is a subscription, served only over the WebSocket of /v1/jsonrpc`,
        { code: 'WEBSOCKET_ONLY' });
    },
  };
}

export const SUBSCRIPTION_HTTP_METHODS: readonly JsonRpcMethod[] = [websocketOnly('suix_subscribeEvent'), websocketOnly('suix_subscribeTransaction')];
