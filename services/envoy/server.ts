import { logVerbosity, Server, ServerCredentials, setLogVerbosity, status, type sendUnaryData, type ServerUnaryCall, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { isApiError, type Logger } from '../core/index.js';
import type { AuthzCheck } from './authz/check.js';
import type { CheckRequest, CheckResponse, RateLimitRequest, RateLimitResponse } from './envoy-types.js';
import { authorizationService, rateLimitService } from './protos.js';
import type { RateLimitCheck } from './ratelimit/should-rate-limit.js';

export interface EnvoyServiceServer {
  /** The port bound (the one asked for, or the one chosen for port 0). */
  port: number;
  close(): Promise<void>;
}

export interface EnvoyServices {
  authz?: AuthzCheck;
  ratelimit?: RateLimitCheck;
}

/**
 * One grpc-js server (plaintext h2c, as Envoy's gRPC clusters call it inside the cluster) serving
 * `envoy.service.auth.v3.Authorization` and/or `envoy.service.ratelimit.v3.RateLimitService`.
 * A failure the services did not turn into an answer is a gRPC error: Envoy then applies its own
 * failure mode (ext_authz denies, the ratelimit filter allows; docs/envoy.md).
 */
export async function startEnvoyServices(
  services: EnvoyServices,
  listen: { host: string; port: number },
  logger: Logger,
): Promise<EnvoyServiceServer> {
  const server = new Server();
  if (services.authz) {
    const authz = services.authz;
    server.addService(authorizationService().service, {
      Check: unary<CheckRequest, CheckResponse>((request) => authz.check(request), logger, 'ext_authz'),
    } satisfies UntypedServiceImplementation);
  }
  if (services.ratelimit) {
    const ratelimit = services.ratelimit;
    server.addService(rateLimitService().service, {
      ShouldRateLimit: unary<RateLimitRequest, RateLimitResponse>((request) => ratelimit.shouldRateLimit(request), logger, 'ratelimit'),
    } satisfies UntypedServiceImplementation);
  }
  // grpc-js prints a line of its own when a bind fails ("No address added…"); the failure is the
  // caller's to report (one line naming the port's setting), so grpc-js stays quiet meanwhile and
  // then logs at its default level again.
  setLogVerbosity(logVerbosity.NONE);
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`${listen.host}:${listen.port}`, ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound)));
  }).finally(() => setLogVerbosity(logVerbosity.ERROR));
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.tryShutdown(() => resolve());
      }),
  };
}

function unary<Request, Response>(handle: (request: Request) => Promise<Response>, logger: Logger, name: string) {
  return (call: ServerUnaryCall<Request, Response>, callback: sendUnaryData<Response>): void => {
    handle(call.request).then(
      (response) => callback(null, response),
      (error: unknown) => {
        if (isApiError(error)) {
          callback({ code: error.definition.grpc, details: error.message });
          return;
        }
        logger.error({ err: error }, `${name} call failed`);
        callback({ code: status.UNAVAILABLE, details: `${name} could not decide` });
      },
    );
  };
}
