export { AuthzCheck, type AuthzCheckOptions } from './authz/check.js';
export { RateLimitCheck, type ShouldRateLimitOptions } from './ratelimit/should-rate-limit.js';
export { DESCRIPTOR_KEYS, readDescriptors } from './ratelimit/descriptors.js';
export { GatewayRoutes, type MatchedRoute, type RouteDeclaration } from './gateway-routes.js';
export { startEnvoyServices, CHECK_PATH, SHOULD_RATE_LIMIT_PATH, type EnvoyServiceServer, type EnvoyServices } from './server.js';
export type * from './envoy-types.js';
