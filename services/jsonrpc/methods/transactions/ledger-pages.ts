import { createHash } from 'node:crypto';
import { fromBase64, toBase64 } from '@mysten/sui/utils';
import type { RpcOptions, ServerStreamingCall } from '@protobuf-ts/runtime-rpc';
import { JSONRPC_ERROR, JsonRpcError, type JsonRpcContext } from '../../method.js';

/**
 * One page of a v2 `List*` query stream (ListTransactions, ListEvents), paged with our opaque
 * cursors: the cursor carries the stream's own resume watermark, so no legacy cursor ever goes
 * upstream and a page never rescans what the last one read.
 */

/** The node's QUERY_MAX_RESULT_LIMIT: a larger or zero limit is served as 50. */
export const MAX_PAGE = 50;

export function pageLimit(limit: unknown): number {
  const n = typeof limit === 'number' ? limit : 0;
  return n <= 0 || n > MAX_PAGE ? MAX_PAGE : Math.floor(n);
}

interface Frame<T> {
  item: T | undefined;
  watermark?: { cursor?: Uint8Array };
  end?: { reason?: number };
}

const END_SCAN_LIMIT = 2;
const ORDER_ASCENDING = 0;
const ORDER_DESCENDING = 1;

/** What our cursor holds: the upstream watermark, the order and the query it was made for. */
interface CursorState {
  w: string;
  d: boolean;
  q: string;
}

export interface PageQuery {
  method: string;
  /** The query's identity (filter and range): a cursor is only valid for the query it came from. */
  query: unknown;
  cursor: string | undefined;
  limit: number;
  descending: boolean;
}

export interface Page<T> {
  items: T[];
  hasNextPage: boolean;
  nextCursor: string | null;
}

function queryHash(query: unknown): string {
  return createHash('sha256').update(JSON.stringify(query ?? null)).digest('base64url').slice(0, 16);
}

export function decodePosition(context: JsonRpcContext, page: PageQuery): Uint8Array | undefined {
  if (page.cursor === undefined || page.cursor === null) return undefined;
  const state = context.cursors.decode<CursorState>(page.method, page.cursor);
  if (state.d !== page.descending || state.q !== queryHash(page.query)) {
    throw new JsonRpcError(JSONRPC_ERROR.invalidParams, 'Invalid params: the cursor was made for another query or order', { code: 'INVALID_CURSOR' });
  }
  return fromBase64(state.w);
}

export function encodePosition(context: JsonRpcContext, page: PageQuery, watermark: Uint8Array): string {
  const state: CursorState = { w: toBase64(watermark), d: page.descending, q: queryHash(page.query) };
  return context.cursors.encode(page.method, state);
}

export function queryOptions(context: JsonRpcContext, page: PageQuery) {
  const position = decodePosition(context, page);
  return {
    // One more than the page: whether it arrives says if there is a next page.
    limit: page.limit + 1,
    ordering: page.descending ? ORDER_DESCENDING : ORDER_ASCENDING,
    ...(position ? (page.descending ? { before: position } : { after: position }) : {}),
  };
}

/**
 * Reads one page from a List* stream: up to `limit` items, the watermark after the last one kept
 * (the cursor given when none was kept), and whether more may follow (an extra item arrived, or
 * the node stopped at its scan limit).
 */
export async function readPage<T>(
  context: JsonRpcContext, operation: string, page: PageQuery,
  open: (options: RpcOptions) => ServerStreamingCall<object, object>, pick: (frame: object) => Frame<T>,
): Promise<Page<T>> {
  return context.upstream.call(operation, async (options) => {
    const call = open(options);
    const items: T[] = [];
    let position: Uint8Array | undefined;
    let more = false;
    let lastWatermark: Uint8Array | undefined;
    for await (const raw of call.responses) {
      const frame = pick(raw);
      if (frame.watermark?.cursor?.length) lastWatermark = frame.watermark.cursor;
      // The stream is bounded by the limit we asked for: read it to its end rather than cancel it.
      if (frame.item !== undefined) {
        if (items.length === page.limit) more = true;
        else {
          items.push(frame.item);
          position = frame.watermark?.cursor;
        }
      }
      if (frame.end?.reason === END_SCAN_LIMIT && !more) {
        more = true;
        position = lastWatermark;
      }
    }
    // Nothing kept: the cursor given, as a node answers (`data.last().map_or(cursor, ...)`), so a
    // client polling past the end with `nextCursor` stays there instead of starting over.
    const nextCursor = position ? encodePosition(context, page, position) : page.cursor ?? null;
    return { items, hasNextPage: more, nextCursor };
  }, { idempotent: true });
}
