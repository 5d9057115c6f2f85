import { GrpcTypes } from '@mysten/sui/grpc';
import { ServiceType } from '@protobuf-ts/runtime-rpc';

/** What a proxied call is labelled with in the upstream metrics when its path is no known method. */
export const OTHER_METHOD = 'other';

/**
 * The method paths the SDK knows (every `sui.rpc.v2` service it ships) and server reflection.
 * The proxy forwards any path, but the path is the caller's: used as a metric label as is, any
 * authenticated client could mint label values without bound by calling made-up paths.
 */
const KNOWN_PATHS: ReadonlySet<string> = new Set([
  ...Object.values(GrpcTypes)
    .filter((value): value is ServiceType => value instanceof ServiceType)
    .flatMap((service) => service.methods.map((method) => `/${service.typeName}/${method.name}`)),
  '/grpc.reflection.v1.ServerReflection/ServerReflectionInfo',
  '/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo',
]);

/** The label of a call's path in the upstream metrics: the path if it is a known method, else `other`. */
export function metricOperationOf(path: string): string {
  return KNOWN_PATHS.has(path) ? path : OTHER_METHOD;
}
