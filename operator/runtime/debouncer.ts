import type { Clock } from '../../services/core/index.js';
import type { Timers } from './timers.js';

/**
 * Coalesces change notifications into one rebuild (Contour's holdoff): it fires after `quietMs`
 * without a new change, or `maxMs` after the first pending change at the latest, so a steady
 * stream of events cannot postpone a rebuild for ever. Never two rebuilds at once: a change
 * during a rebuild schedules the next one.
 */
export class Debouncer {
  #firstPendingAt: number | undefined;
  #timer: unknown;
  #running = false;
  #again = false;
  #stopped = false;
  #current: Promise<void> = Promise.resolve();

  constructor(
    private readonly run: () => Promise<void>,
    private readonly clock: Clock,
    private readonly timers: Timers,
    private readonly quietMs = 100,
    private readonly maxMs = 500,
  ) {}

  notify(): void {
    if (this.#stopped) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    const now = this.clock.now();
    this.#firstPendingAt ??= now;
    const wait = Math.max(0, Math.min(this.quietMs, this.#firstPendingAt + this.maxMs - now));
    if (this.#timer !== undefined) this.timers.clearTimeout(this.#timer);
    this.#timer = this.timers.setTimeout(() => void this.#fire(), wait);
  }

  /** No more rebuilds; resolves once the one running (if any) has finished. */
  stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== undefined) this.timers.clearTimeout(this.#timer);
    return this.#current;
  }

  async #fire(): Promise<void> {
    this.#timer = undefined;
    this.#firstPendingAt = undefined;
    this.#running = true;
    this.#current = this.run();
    try {
      await this.#current;
    } finally {
      this.#running = false;
      if (this.#again) {
        this.#again = false;
        this.notify();
      }
    }
  }
}
