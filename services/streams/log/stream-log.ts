import type { StreamType } from '../definitions/filters.js';

/** The spec's buffer of a disconnected stream: 30 minutes and 2,000 events, whichever first. */
export const BUFFER_MAX_EVENTS = 2_000;
export const BUFFER_MAX_AGE_MS = 30 * 60_000;

/** One matched event in a stream's log. `id` grows monotonically within the stream. */
export interface LogEntry {
  id: string;
  kind: StreamType;
  data: unknown;
  /** When it was appended (the log's clock, ms); the 30-minute cap is counted from here. */
  at: number;
}

export interface AppendedEvent {
  kind: StreamType;
  data: unknown;
}

/**
 * The per-stream log and delivery state, shared by every `streams` process (Redis Streams with a
 * consumer group in production, `MemoryStreamLog` in a single `suigw dev` process).
 *
 * Delivery model (one active connection per stream, so one consumer per stream):
 * - `append` adds events and trims the log to the caps;
 * - `readNew` hands out events never handed out before and marks them pending;
 * - `readPending` re-reads events handed out but not acknowledged (a resumed connection);
 * - `ack` acknowledges events by id (WebSocket acks; SSE after its redelivery window);
 * - `ackThrough` acknowledges every pending event up to an id (Last-Event-ID, lastEventId);
 * - `discard` drops the buffer (a live-mode connection starts from now);
 * - `remove` deletes a deleted stream's log (nothing else would: it is not appended to again).
 * Entries past the caps are never returned, whether or not a trim has run yet.
 */
export interface StreamLog {
  /**
   * With `checkpoint`, appends only if no later-or-equal checkpoint of the same `chain` (the
   * upstream's chain identifier) was appended to this stream before (returns [] otherwise): a
   * restarted ingest, or one reading a replica that lags, re-splices without duplicates. A
   * checkpoint of another chain (a wiped devnet or testnet starts again from 0) is appended, and
   * the guard follows that chain from then on.
   */
  append(streamId: string, events: readonly AppendedEvent[], checkpoint?: bigint, chain?: string): Promise<string[]>;
  readNew(streamId: string, count: number): Promise<LogEntry[]>;
  readPending(streamId: string, after: string | undefined, count: number): Promise<LogEntry[]>;
  ack(streamId: string, ids: readonly string[]): Promise<void>;
  /** Returns how many events handed out earlier it acknowledged (what a resumed client says it received). */
  ackThrough(streamId: string, id: string): Promise<number>;
  discard(streamId: string): Promise<void>;
  /** Deletes the logs of deleted streams, with their delivery state and checkpoint guards. */
  remove(streamIds: readonly string[]): Promise<void>;
  /** The ids of the streams the log holds anything of, a page at a time (the start-up sweep of deleted streams' logs). */
  loggedStreams(): AsyncIterable<string[]>;
  /** Calls `listener(streamId)` after events were appended to a stream by any process. */
  onAppend(listener: (streamId: string) => void): () => void;
  /** Whether the log's store answers now (Redis connected; always, in memory): `/health` reads it. */
  connected(): boolean;
  close(): Promise<void>;
}

/** Ids are `<ms>-<seq>` (Redis Streams' form) in both implementations. */
export function compareIds(a: string, b: string): number {
  const [am, as] = a.split('-').map(BigInt) as [bigint, bigint];
  const [bm, bs] = b.split('-').map(BigInt) as [bigint, bigint];
  if (am !== bm) return am < bm ? -1 : 1;
  return as === bs ? 0 : as < bs ? -1 : 1;
}

/** Whether `id` is a log id at all (client input: lastEventId, Last-Event-ID). */
export function isLogId(id: string): boolean {
  return /^\d{1,15}-\d{1,15}$/.test(id);
}
