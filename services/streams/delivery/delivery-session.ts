import type { Clock } from '../../core/index.js';
import type { LogEntry, StreamLog } from '../log/stream-log.js';
import type { EventCharges } from './warp-charges.js';

/** Unacknowledged WebSocket events in flight at once: a slow client is not flooded. */
export const WS_WINDOW = 500;
/** SSE has no acks: what it wrote is acknowledged after this (the spec's redelivery window). */
export const SSE_REDELIVERY_MS = 30_000;

/** A server message (WebSocket `{event, data, id?}`; SSE `event:`, `data:`, `id:`). */
export interface StreamMessage {
  event: string;
  data: unknown;
  id?: string;
}

/** What a session writes to: the WebSocket or the SSE response. */
export interface MessageSink {
  /** Resolves when the transport can take more (backpressure). */
  send(message: StreamMessage): Promise<void>;
  close(code: number, reason: string): void;
  /**
   * Called every HEARTBEAT_MS while the connection is open: proves the peer is still there and
   * keeps idle intermediaries from dropping a quiet connection (WebSocket ping, which every
   * client answers, the connection ended when the previous one went unanswered; an SSE comment).
   */
  heartbeat(): void;
}

export interface DeliverySessionOptions {
  streamId: string;
  log: StreamLog;
  clock: Clock;
  sink: MessageSink;
  /** `client`: WebSocket, an event is delivered when acked. `window`: SSE, acked SSE_REDELIVERY_MS after writing. */
  acks: 'client' | 'window';
  /** Pays for each event: before it is sent (false = credits spent: quota_exceeded, then close 1008), when acknowledged, and gives back what never was. */
  charges: EventCharges;
}

/**
 * One connection's delivery of one stream: replay of the buffer (resume) or none (live), then
 * live events as the log announces them, in log order, charged per delivered event.
 */
export class DeliverySession {
  readonly #o: DeliverySessionOptions;
  #closed = false;
  /** Nothing more is sent (credits ran out, or the transport failed); acks are still taken until `stop`. */
  #sendingStopped = false;
  #replaying = false;
  #replayAfter: string | undefined;
  #pumping = false;
  #again = false;
  readonly #inflight = new Set<string>();
  readonly #written: { id: string; at: number }[] = [];

  constructor(options: DeliverySessionOptions) {
    this.#o = options;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Readies the log, sending nothing. Live (default): the buffer is discarded. Resume: pending
   * and buffered events will be replayed first; `lastEventId` acknowledges everything up to it.
   * Returns how many events that acknowledged, for `begin` to charge: the connect is settled
   * between the two, so a log that fails here costs nothing (an INTERNAL_ERROR answer).
   */
  async prepare(mode: 'live' | 'resume', lastEventId: string | undefined): Promise<number> {
    const { log, streamId } = this.#o;
    if (mode === 'live') {
      await log.discard(streamId);
      return 0;
    }
    const acknowledged = lastEventId === undefined ? 0 : await log.ackThrough(streamId, lastEventId);
    this.#replaying = true;
    return acknowledged;
  }

  /** Charges the events `prepare` found acknowledged (delivered to a resumed client), then starts sending. */
  async begin(acknowledged: number): Promise<void> {
    await this.#o.charges.acked(acknowledged, false);
    this.pump();
  }

  /**
   * A client ack (WebSocket), taken until `stop`, after `quota_exceeded` too: the client received
   * the event, so it is delivered, charged from the credit held for it and never sent again.
   * Unknown ids are ignored: an ack cannot touch another event.
   */
  async ack(id: string): Promise<void> {
    // After `stop` the held credits were given back: a late ack leaves the event pending for a resume.
    if (this.#closed || !this.#inflight.delete(id)) return;
    // Out of the in-flight set, its credit is this ack's: charged once the log has the ack, given back if it fails.
    try {
      await this.#o.log.ack(this.#o.streamId, [id]);
    } catch (error) {
      this.#o.charges.release(1);
      throw error;
    }
    await this.#o.charges.acked(1, true);
    this.pump();
  }

  /** SSE: acknowledges what was written more than the redelivery window ago. */
  async ackWritten(): Promise<void> {
    const horizon = this.#o.clock.now() - SSE_REDELIVERY_MS;
    const due: string[] = [];
    while (this.#written.length > 0 && this.#written[0]!.at <= horizon) due.push(this.#written.shift()!.id);
    if (due.length > 0) await this.#o.log.ack(this.#o.streamId, due);
  }

  /**
   * Nothing more is sent (credits ran out, or the transport failed), while the connection lives
   * on until its close: acks of the events in flight are still taken until `stop`.
   */
  stopSending(): void {
    this.#sendingStopped = true;
  }

  /** Ends delivery; the credits held for events sent and not acknowledged are given back (they stay pending for a resume). */
  stop(): void {
    this.#closed = true;
    this.#o.charges.release(this.#inflight.size);
    this.#inflight.clear();
  }

  get #sending(): boolean {
    return !this.#closed && !this.#sendingStopped;
  }

  /** Sends what there is to send; concurrent calls fold into one more round. */
  pump(): void {
    if (!this.#sending) return;
    if (this.#pumping) {
      this.#again = true;
      return;
    }
    this.#pumping = true;
    void this.#rounds().finally(() => {
      this.#pumping = false;
    });
  }

  async #rounds(): Promise<void> {
    try {
      do {
        this.#again = false;
        await this.#drain();
      } while (this.#again && this.#sending);
    } catch {
      // The transport or the log failed: the connection ends; unacked events stay pending for a resume.
      this.stopSending();
      this.#o.sink.close(1011, 'INTERNAL_ERROR');
    }
  }

  async #drain(): Promise<void> {
    const { log, streamId } = this.#o;
    while (this.#sending) {
      const room = this.#o.acks === 'client' ? WS_WINDOW - this.#inflight.size : WS_WINDOW;
      if (room <= 0) return;
      let entries: LogEntry[];
      if (this.#replaying) {
        entries = await log.readPending(streamId, this.#replayAfter, room);
        if (entries.length === 0) {
          this.#replaying = false;
          continue;
        }
        this.#replayAfter = entries[entries.length - 1]!.id;
      } else {
        entries = await log.readNew(streamId, room);
        if (entries.length === 0) return;
      }
      for (const entry of entries) {
        if (!this.#sending) return;
        if (!(await this.#o.charges.beforeSend())) {
          this.stopSending();
          await this.#o.sink.send({ event: 'quota_exceeded', data: { code: 'CU_QUOTA_EXCEEDED', message: 'Monthly credits spent' } });
          this.#o.sink.close(1008, 'QUOTA_EXCEEDED');
          return;
        }
        if (!this.#sending) {
          // Stopped while the credit was being taken: nothing gave it back.
          this.#o.charges.release(1);
          return;
        }
        if (this.#o.acks === 'client') this.#inflight.add(entry.id);
        else this.#written.push({ id: entry.id, at: this.#o.clock.now() });
        await this.#o.sink.send({ event: entry.kind, id: entry.id, data: entry.data });
      }
      if (this.#o.acks === 'window') await this.ackWritten();
    }
  }
}
