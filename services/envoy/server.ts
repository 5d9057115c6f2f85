import type { Logger } from '../core/index.js';
import { frameMessage } from '../upstream/index.js';
import type { AuthzCheck } from './authz/check.js';
import type { CheckRequest, CheckResponse, RateLimitRequest, RateLimitResponse } from './envoy-types.js';
import { authorizationService, rateLimitService } from './protos.js';
import type { RateLimitCheck } from './ratelimit/should-rate-limit.js';
import { MalformedMessage, startUnaryGrpcServer, type UnaryGrpcServer, type UnaryMethod } from './unary-grpc-server.js';

export type EnvoyServiceServer = UnaryGrpcServer;

export interface EnvoyServices {
  authz?: AuthzCheck;
  ratelimit?: RateLimitCheck;
}

/**
 * One h2c server (as Envoy's gRPC clusters call it inside the cluster) serving
 * `envoy.service.auth.v3.Authorization/Check` and/or
 * `envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit`. A failure the services did not
 * turn into an answer is a gRPC error: Envoy then applies its own failure mode (ext_authz
 * denies, the ratelimit filter allows; docs/envoy.md).
 */
export async function startEnvoyServices(
  services: EnvoyServices,
  listen: { host: string; port: number },
  logger: Logger,
): Promise<EnvoyServiceServer> {
  const methods: UnaryMethod[] = [];
  if (services.authz) {
    const authz = services.authz;
    const { Check } = authorizationService().service;
    methods.push({
      path: Check!.path,
      name: 'ext_authz',
      call: async (message) => frameMessage(Check!.responseSerialize(await authz.check(decode<CheckRequest>(Check!.requestDeserialize, message)) satisfies CheckResponse)),
    });
  }
  if (services.ratelimit) {
    const ratelimit = services.ratelimit;
    const { ShouldRateLimit } = rateLimitService().service;
    methods.push({
      path: ShouldRateLimit!.path,
      name: 'ratelimit',
      call: async (message) =>
        frameMessage(ShouldRateLimit!.responseSerialize(await ratelimit.shouldRateLimit(decode<RateLimitRequest>(ShouldRateLimit!.requestDeserialize, message)) satisfies RateLimitResponse)),
    });
  }
  return startUnaryGrpcServer(methods, listen, logger);
}

function decode<Request>(deserialize: (bytes: Buffer) => unknown, message: Buffer): Request {
  try {
    return deserialize(message) as Request;
  } catch (error) {
    throw new MalformedMessage(`The request message does not decode: ${error instanceof Error ? error.message : String(error)}`);
  }
}
