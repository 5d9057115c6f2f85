import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { loadPackageDefinition, type GrpcObject, type ServiceClientConstructor } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';

/**
 * Envoy's own API protos, as shipped inside `@grpc/grpc-js-xds` (deps/: envoy-api, xds/udpa,
 * googleapis, protoc-gen-validate), loaded with @grpc/proto-loader for the tests' and the
 * benchmark's clients and for the codecs' cross-checks: what Envoy sends and reads, encoded by
 * protobufjs, independently of services/envoy/codecs. Loaded once per process. Field names keep
 * their proto spelling (`keepCase`), 64-bit numbers strings, enums numbers (HTTP statuses are
 * an enum of their own codes), absent fields their defaults.
 */
const DEPS = join(dirname(createRequire(import.meta.url).resolve('@grpc/grpc-js-xds/package.json')), 'deps');

export const ENVOY_PROTO_OPTIONS = {
  keepCase: true,
  longs: String,
  enums: Number,
  defaults: true,
  oneofs: true,
  includeDirs: ['envoy-api', 'xds', 'googleapis', 'protoc-gen-validate'].map((dir) => join(DEPS, dir)),
};

let loaded: GrpcObject | undefined;

function envoyProtos(): GrpcObject {
  loaded ??= loadPackageDefinition(
    loadSync(['envoy/service/auth/v3/external_auth.proto', 'envoy/service/ratelimit/v3/rls.proto'], ENVOY_PROTO_OPTIONS),
  );
  return loaded;
}

function service(path: string): ServiceClientConstructor {
  let node: unknown = envoyProtos();
  for (const part of path.split('.')) node = (node as Record<string, unknown>)[part];
  if (typeof node !== 'function') throw new Error(`no service ${path} in Envoy's protos`);
  return node as ServiceClientConstructor;
}

/** `envoy.service.auth.v3.Authorization` (ext_authz): a client, and its method definitions (serializers). */
export function authorizationService(): ServiceClientConstructor {
  return service('envoy.service.auth.v3.Authorization');
}

/** `envoy.service.ratelimit.v3.RateLimitService` (global rate limiting). */
export function rateLimitService(): ServiceClientConstructor {
  return service('envoy.service.ratelimit.v3.RateLimitService');
}
