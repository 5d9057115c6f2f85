import type { OpenRpcMethodObject } from '../discover.js';

/**
 * The WebSocket's two unsubscribe methods as OpenRPC method objects, for its `rpc.discover`:
 * a node serves them (jsonrpsee pairs every subscription with one) but Sui's document omits them.
 */
function unsubscribeMethod(name: string, subscribe: string): OpenRpcMethodObject {
  return {
    name,
    tags: [{ name: 'Extended API' }, { name: 'Websocket' }, { name: 'PubSub' }],
    description: `Ends a subscription made by ${subscribe}; false when the connection holds no such subscription.`,
    params: [{ name: 'subscription', description: `The id ${subscribe} answered.`, required: true, schema: { type: 'integer', format: 'uint64', minimum: 0 } }],
    result: { name: 'unsubscribed', required: true, schema: { type: 'boolean' } },
  };
}

export const UNSUBSCRIBE_METHOD_OBJECTS: readonly OpenRpcMethodObject[] = [
  unsubscribeMethod('suix_unsubscribeEvent', 'suix_subscribeEvent'),
  unsubscribeMethod('suix_unsubscribeTransaction', 'suix_subscribeTransaction'),
];
