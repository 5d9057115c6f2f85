/**
 * How much one filter may ask for, on every surface that matches chain activity against
 * customer filters (Warp streams, webhooks, JSON-RPC subscriptions). Each filter is compiled
 * once, when it is set, into index entries; these bounds keep that compilation and the index
 * small, so one tenant's filters cannot make every event cost more for everyone.
 */
export interface FilterLimits {
  /** Filter nodes: each variant or list entry, combinators (`Any`, `All`) included. */
  maxParts: number;
  /** Nesting of combinators: a plain filter is depth 1, `Any` of plain filters 2. */
  maxDepth: number;
  /** Distinct values (types, addresses, ids, digests ...) after normalization: the index entries. */
  maxDistinctValues: number;
  /** The filter's JSON, UTF-8. */
  maxBytes: number;
}

export const FILTER_LIMITS: FilterLimits = {
  maxParts: 200,
  maxDepth: 4,
  maxDistinctValues: 100,
  maxBytes: 32 * 1024,
};

/** Over all the filters one connection holds (JSON-RPC: a socket's subscriptions). */
export const CONNECTION_FILTER_LIMITS = { maxBytes: 256 * 1024, maxDistinctValues: 1_000 } as const;

/** Over all the filters one organization holds on live connections of one process. */
export const ORGANIZATION_FILTER_LIMITS = { maxBytes: 1024 * 1024 } as const;

/** The filter's JSON size in UTF-8 bytes, as a client sent it. */
export function filterBytes(filter: unknown): number {
  return Buffer.byteLength(JSON.stringify(filter) ?? '', 'utf8');
}
