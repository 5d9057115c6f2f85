import { z } from 'zod';

/**
 * How `/v1/jsonrpc` appears in the OpenAPI document. These schemas document the envelope only:
 * the body is read and checked by the dispatcher (bytes that are not JSON are -32700, not a 400),
 * so the route does not validate with them.
 */
const ALICE = '0x7d20dcdb2bca4f508ea9613994683eb4e76e9c4ed371169677c1be02aaf0b58e';
const SUI = '0x2::sui::SUI';

const id = z.union([z.string(), z.number(), z.null()]);

export const JsonRpcRequestDoc = z.object({
  jsonrpc: z.literal('2.0'),
  id: id.optional().describe('Echoed in the response; a call without an id is a notification (no response)'),
  method: z.string().describe('A method of Sui\'s OpenRPC document (docs/jsonrpc.md lists what each translates to)'),
  params: z.union([z.array(z.unknown()), z.record(z.string(), z.unknown())]).optional().describe('Positional or named'),
}).meta({ id: 'JsonRpcRequest', examples: [{ jsonrpc: '2.0', id: 1, method: 'suix_getBalance', params: [ALICE, SUI] }] });

export const JsonRpcResponseDoc = z.object({
  jsonrpc: z.literal('2.0'),
  id,
  result: z.unknown().optional(),
  error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }).optional(),
}).meta({
  id: 'JsonRpcResponse',
  examples: [
    { jsonrpc: '2.0', id: 1, result: { coinType: SUI, coinObjectCount: 2, totalBalance: '1500000000', lockedBalance: {} } },
    { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'Method not found: sui_noSuchMethod' } },
  ],
});

export const JsonRpcBodyDoc = z.union([JsonRpcRequestDoc, z.array(JsonRpcRequestDoc).describe('A batch: one response per call, in order')]);
export const JsonRpcAnswerDoc = z.union([JsonRpcResponseDoc, z.array(JsonRpcResponseDoc)]);

/** The WebSocket's frames, for its description (a WebSocket has no request body to document). */
export const WEBSOCKET_EXAMPLE = {
  subscribe: { jsonrpc: '2.0', id: 1, method: 'suix_subscribeEvent', params: [{ Sender: ALICE }] },
  subscribed: { jsonrpc: '2.0', id: 1, result: 3179016221154213 },
  notification: { jsonrpc: '2.0', method: 'suix_subscribeEvent', params: { subscription: 3179016221154213, result: { id: { txDigest: 'DJjb3zMU7AqzjqW4Ds3B1pcJ4RqFSu4vW4EyTGn3eEWR', eventSeq: '0' }, sender: ALICE } } },
} as const;

export const webSocketQuery = z.object({
  api_key: z.string().optional().describe('The key, for clients that cannot set headers (compatibility only)'),
});

export const WEBSOCKET_DESCRIPTION =
  'Upgrade to a WebSocket (GET with `Upgrade: websocket`) for `suix_subscribeEvent` / `suix_subscribeTransaction` ' +
  'and their `suix_unsubscribe*`, as on a Sui node. The upgrade is authenticated like every data route and costs 1 credit; ' +
  'each call and each notification costs 1 credit. When the credits are spent the socket closes with 1008 `QUOTA_EXCEEDED`. ' +
  `Send \`${JSON.stringify(WEBSOCKET_EXAMPLE.subscribe)}\`; the answer is \`${JSON.stringify(WEBSOCKET_EXAMPLE.subscribed)}\`, ` +
  `then each match arrives as \`${JSON.stringify(WEBSOCKET_EXAMPLE.notification)}\`.`;
