/**
 * Envoy resources as protobufjs object form of Envoy's own protos: snake_case field names as in
 * the .proto files, enums by name, `Any` as `{'@type': typeUrl, ...fields}`, Durations as
 * `{seconds, nanos}` and wrapper types as `{value}`. This is exactly what is encoded for ADS,
 * and what the golden files show.
 */
export type EnvoyResource = { name?: string; cluster_name?: string } & Record<string, unknown>;

/** One consistent set of resources, versioned by the IR it was built from. */
export interface EnvoySnapshot {
  version: string;
  listeners: EnvoyResource[];
  routes: EnvoyResource[];
  clusters: EnvoyResource[];
  endpoints: EnvoyResource[];
}

export function duration(ms: number): { seconds: number; nanos: number } {
  return { seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1_000_000 };
}

/** The name an xDS client subscribes by: `cluster_name` for endpoints, `name` otherwise. */
export function resourceName(resource: EnvoyResource): string {
  return String(resource.name ?? resource.cluster_name ?? '');
}

/** Code-point order (not the locale's): the same bytes on every machine. */
export function byResourceName(a: EnvoyResource, b: EnvoyResource): number {
  const left = resourceName(a);
  const right = resourceName(b);
  return left < right ? -1 : left > right ? 1 : 0;
}
