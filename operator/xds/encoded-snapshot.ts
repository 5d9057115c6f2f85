import { encodeResource, lossesOf, decodeResource } from './envoy-codec.js';
import { resourceName, type EnvoySnapshot } from './snapshot.js';
import { RESOURCE_KINDS, TYPE_URL } from './type-urls.js';

/** A snapshot in wire form: type URL → resource name → encoded bytes. Built once per publish. */
export interface EncodedSnapshot {
  version: string;
  resources: ReadonlyMap<string, ReadonlyMap<string, Buffer>>;
}

const KEY_OF = { listener: 'listeners', route: 'routes', cluster: 'clusters', endpoint: 'endpoints' } as const;

/**
 * Encodes every resource with Envoy's own message types and refuses a snapshot that would not
 * survive the trip (a field protobufjs silently drops is a translation bug, never something to serve).
 */
export function encodeSnapshot(snapshot: EnvoySnapshot): EncodedSnapshot {
  const resources = new Map<string, Map<string, Buffer>>();
  for (const kind of RESOURCE_KINDS) {
    const typeUrl = TYPE_URL[kind];
    const byName = new Map<string, Buffer>();
    for (const resource of snapshot[KEY_OF[kind]]) {
      const bytes = encodeResource(typeUrl, resource);
      const losses = lossesOf(resource, decodeResource(typeUrl, bytes));
      if (losses.length > 0) throw new Error(`xDS ${kind} ${resourceName(resource)} does not survive Envoy's protos: ${losses.join(', ')}`);
      byName.set(resourceName(resource), Buffer.from(bytes));
    }
    resources.set(typeUrl, byName);
  }
  return { version: snapshot.version, resources };
}
