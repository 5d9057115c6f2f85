import type { Database } from '../../db/index.js';
import { pausedStreamIds } from '../definitions/pause.js';
import { liveStreamOrganizations } from '../definitions/store.js';

/** How often open connections learn that their stream was deleted or paused. */
export const PRESENCE_CHECK_MS = 1_000;

/** Why an open connection's stream no longer delivers: deleted, or paused by the plan-end rule. */
export type StreamEnd = 'STREAM_NOT_FOUND' | 'STREAM_PAUSED';

/**
 * Tells open connections when their stream is deleted (they close 4004 STREAM_NOT_FOUND) or
 * paused because the organization's plan ended (4003 STREAM_PAUSED: spec, plan states, "streams
 * above Free limits pause", which an open connection would otherwise outlive), so they do not
 * stay open delivering or being charged connection minutes. Two queries a second for all the
 * process's connections, whatever their number, and none while there are none.
 */
export class StreamPresence {
  readonly #database: Database;
  readonly #intervalMs: number;
  readonly #watchers = new Map<string, Set<(end: StreamEnd) => void>>();
  #timer: NodeJS.Timeout | undefined;

  constructor(database: Database, intervalMs = PRESENCE_CHECK_MS) {
    this.#database = database;
    this.#intervalMs = intervalMs;
  }

  /** Calls `onEnd` once when `streamId` is found deleted or paused; returns what stops watching. */
  watch(streamId: string, onEnd: (end: StreamEnd) => void): () => void {
    let watchers = this.#watchers.get(streamId);
    if (!watchers) this.#watchers.set(streamId, (watchers = new Set()));
    watchers.add(onEnd);
    this.#timer ??= setInterval(() => void this.check().catch(() => undefined), this.#intervalMs).unref();
    return () => {
      watchers.delete(onEnd);
      if (watchers.size === 0) this.#watchers.delete(streamId);
      if (this.#watchers.size === 0) this.#stop();
    };
  }

  /** One pass: every watched stream that is deleted or paused is reported and forgotten. */
  async check(): Promise<void> {
    const ids = [...this.#watchers.keys()];
    const live = await liveStreamOrganizations(this.#database, ids);
    const paused = await pausedStreamIds(this.#database, [...new Set(live.values())]);
    for (const id of ids) {
      const end: StreamEnd | undefined = !live.has(id) ? 'STREAM_NOT_FOUND' : paused.has(id) ? 'STREAM_PAUSED' : undefined;
      if (end === undefined) continue;
      const watchers = this.#watchers.get(id);
      this.#watchers.delete(id);
      for (const onEnd of watchers ?? []) onEnd(end);
    }
    if (this.#watchers.size === 0) this.#stop();
  }

  #stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
