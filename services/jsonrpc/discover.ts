import { OPENRPC_DOCUMENT, type OpenRpcMethodSpec } from './openrpc.js';

/**
 * `rpc.discover` (OpenRPC's service discovery method, https://spec.open-rpc.org/#service-discovery-method):
 * a Sui node answered it with its OpenRPC document, and tools (OpenRPC playgrounds, client
 * generators) call it first. The gateway answers a document of exactly the methods the transport
 * asked serves, each as Sui's document describes it (version 1.78.2, spec/sui-openrpc.json), with
 * the component schemas those methods reference. `rpc.discover` itself is not listed, as in a
 * node's document.
 */

export const RPC_DISCOVER = 'rpc.discover';

/** It takes no params: `[]`, `{}` or none; anything more is -32602 as for any method. */
export const RPC_DISCOVER_SPEC: OpenRpcMethodSpec = { name: RPC_DISCOVER, params: [], result: {} };

/** An OpenRPC method object, as the document holds it. */
export type OpenRpcMethodObject = { name: string } & Record<string, unknown>;

export interface OpenRpcDiscoverDocument {
  openrpc: string;
  info: Record<string, unknown>;
  methods: OpenRpcMethodObject[];
  components: { schemas: Record<string, unknown> };
}

/** Sui's own description of `name`, as its document holds it. */
export function documentMethod(name: string): OpenRpcMethodObject {
  const method = OPENRPC_DOCUMENT.methods.find((candidate) => candidate.name === name);
  if (!method) throw new Error(`JSON-RPC method ${name} is not in the OpenRPC document`);
  return method as unknown as OpenRpcMethodObject;
}

/** The document of `methods`: Sui's info with our title, the methods by name, and the schemas they reach. */
export function discoverDocument(methods: readonly OpenRpcMethodObject[]): OpenRpcDiscoverDocument {
  return {
    openrpc: OPENRPC_DOCUMENT.openrpc,
    info: {
      title: 'Sui JSON-RPC (suigw)',
      description: 'Sui\'s JSON-RPC served by translation to gRPC v2 and GraphQL; each method as Sui\'s OpenRPC document describes it. ' +
        'POST /v1/jsonrpc serves the read, execution and builder methods; its WebSocket serves the subscriptions. ' +
        'Where the wire differs from the schemas, see docs/jsonrpc.md ("Wire exceptions to the document").',
      license: OPENRPC_DOCUMENT.info.license,
      version: OPENRPC_DOCUMENT.info.version,
    },
    methods: [...methods].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    components: { schemas: reachableSchemas(methods) },
  };
}

const LOCAL_SCHEMA = '#/components/schemas/';

/** The component schemas `methods` reference, directly or through other schemas. */
function reachableSchemas(methods: readonly OpenRpcMethodObject[]): Record<string, unknown> {
  const all = OPENRPC_DOCUMENT.components.schemas;
  const reached = new Set<string>();
  const pending: unknown[] = [...methods];
  while (pending.length > 0) {
    const value = pending.pop();
    if (value === null || typeof value !== 'object') continue;
    const ref = (value as { $ref?: unknown }).$ref;
    if (typeof ref === 'string' && ref.startsWith(LOCAL_SCHEMA)) {
      const name = ref.slice(LOCAL_SCHEMA.length);
      if (!reached.has(name) && Object.hasOwn(all, name)) {
        reached.add(name);
        pending.push(all[name]);
      }
    }
    pending.push(...Object.values(value));
  }
  return Object.fromEntries(Object.keys(all).filter((name) => reached.has(name)).map((name) => [name, all[name]]));
}
