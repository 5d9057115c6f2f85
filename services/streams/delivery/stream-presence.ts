import type { Database } from '../../db/index.js';
import { liveStreamIds } from '../definitions/store.js';

/** How often open connections learn that their stream was deleted. */
export const PRESENCE_CHECK_MS = 1_000;

/**
 * Tells open connections when their stream is deleted, so they close (4004 STREAM_NOT_FOUND)
 * instead of staying open, receiving nothing and being charged connection minutes. One query a
 * second for all the process's connections, whatever their number, and none while there are none.
 */
export class StreamPresence {
  readonly #database: Database;
  readonly #intervalMs: number;
  readonly #watchers = new Map<string, Set<() => void>>();
  #timer: NodeJS.Timeout | undefined;

  constructor(database: Database, intervalMs = PRESENCE_CHECK_MS) {
    this.#database = database;
    this.#intervalMs = intervalMs;
  }

  /** Calls `onGone` once when `streamId` is found deleted; returns what stops watching. */
  watch(streamId: string, onGone: () => void): () => void {
    let watchers = this.#watchers.get(streamId);
    if (!watchers) this.#watchers.set(streamId, (watchers = new Set()));
    watchers.add(onGone);
    this.#timer ??= setInterval(() => void this.check().catch(() => undefined), this.#intervalMs).unref();
    return () => {
      watchers.delete(onGone);
      if (watchers.size === 0) this.#watchers.delete(streamId);
      if (this.#watchers.size === 0) this.#stop();
    };
  }

  /** One pass: every watched stream that is no longer live is reported and forgotten. */
  async check(): Promise<void> {
    const ids = [...this.#watchers.keys()];
    const live = await liveStreamIds(this.#database, ids);
    for (const id of ids) {
      if (live.has(id)) continue;
      const watchers = this.#watchers.get(id);
      this.#watchers.delete(id);
      for (const onGone of watchers ?? []) onGone();
    }
    if (this.#watchers.size === 0) this.#stop();
  }

  #stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
