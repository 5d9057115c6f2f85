import { GrpcTypes } from '@mysten/sui/grpc';
import { ServiceType } from '@protobuf-ts/runtime-rpc';

/** What a proxied call is labelled with in the upstream metrics when its path is no known method. */
export const OTHER_METHOD = 'other';

/**
 * The method paths the SDK knows (every `sui.rpc.v2` service it ships) and server reflection.
 * The proxy forwards any path, but the path is the caller's: used as a metric label as is, any
 * authenticated client could mint label values without bound by calling made-up paths.
 */
const SERVICES = Object.values(GrpcTypes).filter((value): value is ServiceType => value instanceof ServiceType);

const KNOWN_PATHS: ReadonlySet<string> = new Set([
  ...SERVICES.flatMap((service) => service.methods.map((method) => `/${service.typeName}/${method.name}`)),
  '/grpc.reflection.v1.ServerReflection/ServerReflectionInfo',
  '/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo',
]);

/** The label of a call's path in the upstream metrics: the path if it is a known method, else `other`. */
export function metricOperationOf(path: string): string {
  return KNOWN_PATHS.has(path) ? path : OTHER_METHOD;
}

/** Streaming methods (subscriptions, reflection): their first answer may come long after the call opens. */
const STREAMING_PATHS: ReadonlySet<string> = new Set([
  ...SERVICES.flatMap((service) => service.methods
    .filter((method) => method.serverStreaming || method.clientStreaming)
    .map((method) => `/${service.typeName}/${method.name}`)),
  '/grpc.reflection.v1.ServerReflection/ServerReflectionInfo',
  '/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo',
]);

/** Whether a call's path is a streaming method the SDK knows (see CallOptions.longLived). */
export function isStreamingPath(path: string): boolean {
  return STREAMING_PATHS.has(path);
}
