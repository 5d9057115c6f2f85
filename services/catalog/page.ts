import type { CursorCodec } from '../core/index.js';

/**
 * A catalog list's route: data scope, 1 credit, a REST read; a malformed `cursor` (empty, over
 * 2,048 characters) is INVALID_CURSOR like a forged one, as on every list of the gateway.
 */
export const CATALOG_ROUTE = { auth: { scope: 'data' as const }, cost: 1, protocol: 'rest' as const, fieldCodes: { cursor: 'INVALID_CURSOR' as const } };

export interface CatalogPage<T> {
  data: T[];
  pagination: { limit: number; cursor?: string; hasNext: boolean };
}

/**
 * One page of a catalog list. The position is an offset in the (versioned, ordered) catalog,
 * carried in a signed cursor bound to the list, the network and the filters, like every cursor
 * of the gateway (a foreign or edited one is 400 INVALID_CURSOR).
 */
export function pageOf<T>(items: readonly T[], request: { kind: string; network: string; query: string; limit: number; cursor: string | undefined }, cursors: CursorCodec): CatalogPage<T> {
  const scope = { kind: request.kind, network: request.network, query: request.query };
  const offset = request.cursor === undefined ? 0 : Number(cursors.decode(scope, request.cursor));
  const data = items.slice(offset, offset + request.limit);
  const next = offset + data.length;
  const hasNext = next < items.length;
  return { data, pagination: { limit: request.limit, ...(hasNext ? { cursor: cursors.encode(scope, String(next)) } : {}), hasNext } };
}
