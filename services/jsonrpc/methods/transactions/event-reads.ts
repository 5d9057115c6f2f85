import type { GrpcTypes } from '@mysten/sui/grpc';
import { JSONRPC_ERROR, JsonRpcError, type JsonRpcMethod } from '../../method.js';
import { eventQuery } from './filters.js';
import { pageLimit, queryOptions, readPage } from './ledger-pages.js';
import { timestampMs, type Json } from './legacy-values.js';
import { renderEvent } from './render-response.js';
import { getExecuted, isFinal } from './transaction-reads.js';

/** sui_getEvents, suix_queryEvents. */

const EVENT_READ_MASK = ['package_id', 'module', 'sender', 'event_type', 'contents', 'json', 'checkpoint', 'transaction_digest', 'event_index'];
const TX_EVENTS_MASK = ['digest', 'checkpoint', 'timestamp', 'events.events.package_id', 'events.events.module', 'events.events.sender', 'events.events.event_type', 'events.events.contents', 'events.events.json'];

const getEvents: JsonRpcMethod = {
  name: 'sui_getEvents',
  translatesTo: 'gRPC LedgerService.GetTransaction (events, timestamp; cached once in a checkpoint)',
  async handle(params, context) {
    const digest = String(params.transaction_digest);
    const kept = context.cache.get<Json[]>('transaction-events', digest);
    if (kept !== undefined) return kept;
    const tx = await getExecuted(context, digest, TX_EVENTS_MASK);
    const timestamp = timestampMs(tx.timestamp);
    const events = (tx.events?.events ?? []).map((event, i) => renderEvent(event, digest, i, timestamp));
    if (isFinal(tx)) context.cache.set('transaction-events', digest, events);
    return events;
  },
};

/**
 * The legacy cursor is an `EventID`; ours is an EventID too (the last event's real id, so code that
 * reads `nextCursor.txDigest` keeps working) carrying our opaque position in an extra `position`
 * member the schema allows. A bare EventID, as a node would take, cannot be placed in a v2 stream:
 * -32602 INVALID_CURSOR.
 */
interface EventCursor { txDigest: string; eventSeq: string; position?: string }

const queryEvents: JsonRpcMethod = {
  name: 'suix_queryEvents',
  translatesTo: 'gRPC LedgerService.ListEvents (DNF filter); Transaction filter: LedgerService.GetTransaction',
  unfilled: [
    'filter TimeRange: -32602 UNSUPPORTED_FILTER (v2 indexes events by checkpoint)',
    'cursor: only the nextCursor this gateway returned (EventID plus our opaque `position`)',
    'timestampMs: absent on ListEvents items (v2 events carry their checkpoint, not its time)',
  ],
  async handle(params, context) {
    const filter = params.query as Record<string, unknown>;
    const query = eventQuery(filter);
    const limit = pageLimit(params.limit);
    const descending = params.descending_order === true;
    const cursor = params.cursor as EventCursor | undefined | null;
    if (cursor && typeof cursor.position !== 'string') {
      throw new JsonRpcError(JSONRPC_ERROR.invalidParams, 'Invalid params: legacy event cursors cannot be resumed upstream; pass the nextCursor this gateway returned', { code: 'INVALID_CURSOR' });
    }

    if (query.kind === 'transaction') {
      // One transaction's events: paged here (a transaction emits at most 1,024 events).
      const tx = await getExecuted(context, query.digest, TX_EVENTS_MASK);
      const timestamp = timestampMs(tx.timestamp);
      const all = (tx.events?.events ?? []).map((event, i) => ({ event, i }));
      if (descending) all.reverse();
      const page = { method: 'suix_queryEvents', query: filter, cursor: cursor?.position, limit, descending };
      // The order is in the cursor: a position counted from the other end would skip or repeat events.
      const start = cursor ? context.cursors.decode<{ n: number; q: string; d?: boolean }>(page.method, cursor.position!) : { n: 0, q: query.digest, d: descending };
      if (start.q !== query.digest || (start.d ?? false) !== descending) {
        throw new JsonRpcError(JSONRPC_ERROR.invalidParams, 'Invalid params: the cursor was made for another query or order', { code: 'INVALID_CURSOR' });
      }
      const slice = all.slice(start.n, start.n + limit);
      const data = slice.map(({ event, i }) => renderEvent(event, query.digest, i, timestamp)) as Record<string, Json>[];
      const hasNextPage = start.n + limit < all.length;
      const last = slice.at(-1);
      const nextCursor = last
        ? { txDigest: query.digest, eventSeq: String(last.i), position: context.cursors.encode(page.method, { n: start.n + slice.length, q: query.digest, d: descending }) }
        : cursor ?? null;
      return { data, nextCursor, hasNextPage };
    }

    const page = { method: 'suix_queryEvents', query: filter, cursor: cursor?.position, limit, descending };
    const request: GrpcTypes.ListEventsRequest = {
      readMask: { paths: EVENT_READ_MASK },
      ...(query.filter ? { filter: query.filter } : {}),
      options: queryOptions(context, page),
    };
    const result = await readPage<GrpcTypes.Event>(context, 'ListEvents', page,
      (o) => context.upstream.grpc.ledgerService.listEvents(request, o),
      (frame) => {
        const f = frame as GrpcTypes.ListEventsResponse;
        return { item: f.event, watermark: f.watermark, end: f.end };
      });
    const data = result.items.map((event) => renderEvent(event, event.transactionDigest ?? '', event.eventIndex ?? 0, null));
    const last = result.items.at(-1);
    const nextCursor = last && result.nextCursor
      ? { txDigest: last.transactionDigest ?? '', eventSeq: String(last.eventIndex ?? 0), position: result.nextCursor }
      : result.nextCursor && cursor ? { ...cursor, position: result.nextCursor } : null;
    return { data, nextCursor, hasNextPage: result.hasNextPage };
  },
};

export const EVENT_METHODS: readonly JsonRpcMethod[] = [getEvents, queryEvents];
