/** The gateway's fastify layers that bench/lib/fastify-layers-server.ts can switch on (FASTIFY_LAYERS), each as services/http/app.ts sets it up. */
export const LAYERS = {
  /** `genReqId`: the caller's `x-request-id` when well-formed, else a random UUID. */
  'request-id': 'request id per request (genReqId)',
  /** The HTTP server's timeouts at the shipped defaults (an idle timer per connection). */
  timeouts: 'server timeouts at the shipped defaults',
  /** find-my-way's compiled router and `ignoreTrailingSlash`. */
  router: 'compiled router',
  /** `@fastify/websocket`, registered at the root: its onRequest and onResponse hooks and handler wrapper on every route. */
  websocket: '@fastify/websocket at the root',
  /** One callback `onRequest` (setting `x-request-id`) and one callback `onResponse` hook: the root hooks' dispatch, not their work. */
  hooks: 'root onRequest + onResponse hooks (dispatch only)',
  /** An `onSend` hook setting the meter's five headers, as the metering adapter does on every metered answer. */
  'meter-headers': 'onSend hook with the five x-ratelimit-* / x-svc-credit-* headers',
  /** The route's response schema (auth/me's) through the gateway's serializer compiler. */
  serializer: 'response schema through the gateway serializer',
} as const;
export type Layer = keyof typeof LAYERS;
