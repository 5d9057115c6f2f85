import type { Logger } from '../core/index.js';
import { CHECKED_HEADERS, type AuthzCheck } from './authz/check.js';
import { decodeCheckRequest } from './codecs/check-request.js';
import { decodeRateLimitRequest } from './codecs/rate-limit-request.js';
import type { RateLimitCheck } from './ratelimit/should-rate-limit.js';
import { startUnaryGrpcServer, type UnaryGrpcServer, type UnaryMethod } from './unary-grpc-server.js';

export type EnvoyServiceServer = UnaryGrpcServer;

export interface EnvoyServices {
  authz?: AuthzCheck;
  ratelimit?: RateLimitCheck;
}

export const CHECK_PATH = '/envoy.service.auth.v3.Authorization/Check';
export const SHOULD_RATE_LIMIT_PATH = '/envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit';

/**
 * One h2c server (as Envoy's gRPC clusters call it inside the cluster) serving
 * `envoy.service.auth.v3.Authorization/Check` and/or
 * `envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit`, each message decoded and its
 * answer encoded by the codecs (codecs/), not by Envoy's protos loaded at run time. A failure
 * the services did not turn into an answer is a gRPC error: Envoy then applies its own failure
 * mode (ext_authz denies, the ratelimit filter allows; docs/envoy.md).
 */
export async function startEnvoyServices(
  services: EnvoyServices,
  listen: { host: string; port: number },
  logger: Logger,
): Promise<EnvoyServiceServer> {
  const methods: UnaryMethod[] = [];
  const { authz, ratelimit } = services;
  if (authz) methods.push({ path: CHECK_PATH, name: 'ext_authz', call: (message) => authz.check(decodeCheckRequest(message, CHECKED_HEADERS)) });
  if (ratelimit) methods.push({ path: SHOULD_RATE_LIMIT_PATH, name: 'ratelimit', call: (message) => ratelimit.shouldRateLimit(decodeRateLimitRequest(message)) });
  return startUnaryGrpcServer(methods, listen, logger);
}
