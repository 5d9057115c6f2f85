export type BreakerState = 'closed' | 'open' | 'half_open';

export interface CircuitBreakerOptions {
  /** Consecutive transport failures that open the circuit. */
  failureThreshold: number;
  /** How long the circuit stays open before one probe call is let through. */
  cooldownMs: number;
  now: () => number;
}

/**
 * A consecutive-failure breaker: while open, calls fail fast (no socket, no wait) so a dead
 * upstream costs callers nothing; after the cooldown one probe goes through (half-open) and its
 * outcome closes or re-opens the circuit.
 */
export class CircuitBreaker {
  #failures = 0;
  #openedAt = 0;
  #state: BreakerState = 'closed';
  #probeInFlight = false;
  readonly #options: CircuitBreakerOptions;

  constructor(options: CircuitBreakerOptions) {
    this.#options = options;
  }

  get state(): BreakerState {
    if (this.#state === 'open' && this.#options.now() - this.#openedAt >= this.#options.cooldownMs) {
      this.#state = 'half_open';
      this.#probeInFlight = false;
    }
    return this.#state;
  }

  /** Whether a call may go out now; in half-open only one probe at a time. */
  tryAcquire(): boolean {
    const state = this.state;
    if (state === 'closed') return true;
    if (state === 'open' || this.#probeInFlight) return false;
    this.#probeInFlight = true;
    return true;
  }

  /** How long an open circuit still fails fast (0 when not open). */
  get remainingOpenMs(): number {
    return this.state === 'open' ? Math.max(0, this.#openedAt + this.#options.cooldownMs - this.#options.now()) : 0;
  }

  /** Gives back a half-open probe slot whose outcome says nothing about the upstream (e.g. the caller went away). */
  release(): void {
    this.#probeInFlight = false;
  }

  /** Consecutive failures since the last success. */
  get failures(): number {
    return this.#failures;
  }

  /** Whether this success closed a circuit that was open or half-open (so the caller reports it once). */
  recordSuccess(): boolean {
    const closed = this.#state !== 'closed';
    this.#failures = 0;
    this.#state = 'closed';
    this.#probeInFlight = false;
    return closed;
  }

  /**
   * Whether this failure opened the circuit: from closed, or a half-open probe that failed. A
   * failure of a call let through before the circuit opened keeps it open, and opens nothing.
   */
  recordFailure(): boolean {
    const opened = this.state !== 'open';
    this.#failures += 1;
    this.#probeInFlight = false;
    if (this.#state === 'half_open' || this.#failures >= this.#options.failureThreshold) {
      this.#state = 'open';
      this.#openedAt = this.#options.now();
      return opened;
    }
    return false;
  }
}
