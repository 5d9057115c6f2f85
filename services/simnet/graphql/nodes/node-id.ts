import { badUserInput } from '../errors.js';

/**
 * Global ids of the schema's `Node` types and `Query.node(id)`. Opaque to clients: Base64 of
 * JSON `[typename, key…]`, where the key is what the type is fetched by.
 */
export function nodeId(typename: string, ...key: (string | number)[]): string {
  return Buffer.from(JSON.stringify([typename, ...key])).toString('base64');
}

export function decodeNodeId(id: string): [string, ...unknown[]] {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(id, 'base64').toString('utf8'));
    if (Array.isArray(parsed) && typeof parsed[0] === 'string') return parsed as [string, ...unknown[]];
  } catch {
    // falls through to the error below
  }
  throw badUserInput(`Invalid node id: ${id}`);
}
