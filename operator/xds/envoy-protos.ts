import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import protobuf from 'protobufjs';

/**
 * Envoy's own API protos, as shipped in `@grpc/grpc-js-xds` (deps/): the ground truth every
 * resource we generate is encoded with and checked against. Loaded once, lazily (≈600 files).
 */
const require = createRequire(import.meta.url);
const DEPS = path.join(path.dirname(require.resolve('@grpc/grpc-js-xds/package.json')), 'deps');

/** The deps/ folders, then protobufjs's own copy of google/protobuf/descriptor.proto. */
export const PROTO_INCLUDE_DIRS: readonly string[] = [
  ...['envoy-api', 'xds', 'googleapis', 'protoc-gen-validate'].map((dir) => path.join(DEPS, dir)),
  path.dirname(require.resolve('protobufjs/package.json')),
];

/** The files that define every message we emit or serve, and Envoy's bootstrap (the chart's is checked against it). */
export const ENVOY_PROTO_FILES: readonly string[] = [
  'envoy/config/listener/v3/listener.proto',
  'envoy/config/route/v3/route.proto',
  'envoy/config/cluster/v3/cluster.proto',
  'envoy/config/endpoint/v3/endpoint.proto',
  'envoy/extensions/filters/network/http_connection_manager/v3/http_connection_manager.proto',
  'envoy/extensions/filters/http/ext_authz/v3/ext_authz.proto',
  'envoy/extensions/filters/http/ratelimit/v3/rate_limit.proto',
  'envoy/extensions/filters/http/grpc_web/v3/grpc_web.proto',
  'envoy/extensions/filters/http/cors/v3/cors.proto',
  'envoy/extensions/filters/http/router/v3/router.proto',
  'envoy/extensions/upstreams/http/v3/http_protocol_options.proto',
  'envoy/service/discovery/v3/ads.proto',
  'envoy/config/bootstrap/v3/bootstrap.proto',
];

let root: protobuf.Root | undefined;

/** The protobufjs root with Envoy's types, field names as in the .proto files (snake_case). */
export function envoyProtoRoot(): protobuf.Root {
  if (root) return root;
  const loaded = new protobuf.Root();
  loaded.resolvePath = (_origin, target) => {
    for (const dir of PROTO_INCLUDE_DIRS) {
      const candidate = path.join(dir, target);
      if (fs.existsSync(candidate)) return candidate;
    }
    return target;
  };
  loaded.loadSync([...ENVOY_PROTO_FILES], { keepCase: true });
  loaded.resolveAll();
  root = loaded;
  return root;
}
