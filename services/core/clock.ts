/**
 * The one clock. Everything time-dependent (key expiry, cache TTLs, billing periods, stream
 * buffers, retries) reads it, so tests move time instead of sleeping.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch, UTC. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** The longest delay a Node timer keeps (2^31 - 1 ms, 24.8 days): a longer one fires after 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A clock that only moves when told: for tests. */
export class ManualClock implements Clock {
  #now: number;

  constructor(start: number | Date = Date.UTC(2026, 10, 22, 12, 0, 0)) {
    this.#now = typeof start === 'number' ? start : start.getTime();
  }

  now(): number {
    return this.#now;
  }

  advance(ms: number): void {
    this.#now += ms;
  }

  set(at: number | Date): void {
    this.#now = typeof at === 'number' ? at : at.getTime();
  }
}
