import { EventEmitter } from 'node:events';
import type { Clock } from '../../core/index.js';
import { BUFFER_MAX_AGE_MS, BUFFER_MAX_EVENTS, compareIds, type AppendedEvent, type LogEntry, type StreamLog } from './stream-log.js';

interface StreamState {
  entries: LogEntry[];
  lastMs: number;
  seq: number;
  /** Every entry with an id above this has never been handed out. */
  lastDelivered: string;
  pending: Set<string>;
  checkpoint: bigint;
  /** The chain `checkpoint` belongs to ('' unknown). */
  chain: string;
}

/**
 * The in-process log for `suigw dev` without servers: the same contract as `RedisStreamLog`
 * (stream-log.contract.test.ts runs both), lost when the process exits.
 */
export class MemoryStreamLog implements StreamLog {
  readonly #clock: Clock;
  readonly #streams = new Map<string, StreamState>();
  readonly #appended = new EventEmitter();

  constructor(clock: Clock) {
    this.#clock = clock;
    this.#appended.setMaxListeners(0);
  }

  #state(streamId: string): StreamState {
    let state = this.#streams.get(streamId);
    if (!state) {
      state = { entries: [], lastMs: 0, seq: 0, lastDelivered: '0-0', pending: new Set(), checkpoint: -1n, chain: '' };
      this.#streams.set(streamId, state);
    }
    return state;
  }

  #live(state: StreamState): LogEntry[] {
    const oldest = this.#clock.now() - BUFFER_MAX_AGE_MS;
    const first = state.entries.findIndex((entry) => entry.at >= oldest);
    if (first !== 0) state.entries.splice(0, first === -1 ? state.entries.length : first);
    if (state.entries.length > BUFFER_MAX_EVENTS) state.entries.splice(0, state.entries.length - BUFFER_MAX_EVENTS);
    return state.entries;
  }

  async append(streamId: string, events: readonly AppendedEvent[], checkpoint?: bigint, chain = ''): Promise<string[]> {
    const state = this.#state(streamId);
    if (checkpoint !== undefined) {
      if (chain === state.chain && checkpoint <= state.checkpoint) return [];
      state.checkpoint = checkpoint;
      state.chain = chain;
    }
    const ids: string[] = [];
    for (const event of events) {
      const now = this.#clock.now();
      if (now > state.lastMs) {
        state.lastMs = now;
        state.seq = 0;
      } else {
        state.seq += 1;
      }
      const id = `${state.lastMs}-${state.seq}`;
      state.entries.push({ id, kind: event.kind, data: event.data, at: state.lastMs });
      ids.push(id);
    }
    this.#live(state);
    if (ids.length > 0) this.#appended.emit('append', streamId);
    return ids;
  }

  async readNew(streamId: string, count: number): Promise<LogEntry[]> {
    const state = this.#state(streamId);
    const out = this.#live(state).filter((entry) => compareIds(entry.id, state.lastDelivered) > 0).slice(0, count);
    for (const entry of out) state.pending.add(entry.id);
    if (out.length > 0) state.lastDelivered = out[out.length - 1]!.id;
    return out;
  }

  async readPending(streamId: string, after: string | undefined, count: number): Promise<LogEntry[]> {
    const state = this.#state(streamId);
    const live = this.#live(state);
    const kept = new Set(live.map((entry) => entry.id));
    for (const id of state.pending) if (!kept.has(id)) state.pending.delete(id);
    return live.filter((entry) => state.pending.has(entry.id) && (after === undefined || compareIds(entry.id, after) > 0)).slice(0, count);
  }

  async ack(streamId: string, ids: readonly string[]): Promise<void> {
    const state = this.#state(streamId);
    for (const id of ids) state.pending.delete(id);
  }

  async ackThrough(streamId: string, id: string): Promise<number> {
    const state = this.#state(streamId);
    let acknowledged = 0;
    for (const pending of [...state.pending]) {
      if (compareIds(pending, id) <= 0 && state.pending.delete(pending)) acknowledged += 1;
    }
    // Events up to `id` never handed out (a Last-Event-ID from an earlier process) are not new either.
    // Never past the newest event: an id from the future (client input) would skip events to come.
    const newest = state.entries[state.entries.length - 1];
    if (!newest) return acknowledged;
    const through = compareIds(id, newest.id) > 0 ? newest.id : id;
    if (compareIds(through, state.lastDelivered) > 0) state.lastDelivered = through;
    return acknowledged;
  }

  async discard(streamId: string): Promise<void> {
    const state = this.#state(streamId);
    state.pending.clear();
    const last = state.entries[state.entries.length - 1];
    if (last && compareIds(last.id, state.lastDelivered) > 0) state.lastDelivered = last.id;
  }

  async remove(streamIds: readonly string[]): Promise<void> {
    for (const streamId of streamIds) this.#streams.delete(streamId);
  }

  async *loggedStreams(): AsyncIterable<string[]> {
    if (this.#streams.size > 0) yield [...this.#streams.keys()];
  }

  onAppend(listener: (streamId: string) => void): () => void {
    this.#appended.on('append', listener);
    return () => this.#appended.off('append', listener);
  }

  connected(): boolean {
    return true;
  }

  async close(): Promise<void> {
    this.#appended.removeAllListeners();
  }
}
