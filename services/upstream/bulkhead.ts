import { UpstreamError } from './errors.js';

export interface BulkheadOptions {
  /** Calls in flight to one upstream at a time. */
  maxConcurrent: number;
  /** Calls waiting for a slot; one more is refused at once. */
  maxQueued: number;
}

interface Waiter {
  grant: () => void;
  refuse: (reason: 'cancelled' | 'timeout') => void;
}

/**
 * Bounds what one upstream is asked at a time: up to `maxConcurrent` calls run, up to
 * `maxQueued` wait in order, and a caller that finds the queue full is refused (`'full'`) without
 * touching the others. Heavy load from one key therefore waits or is turned away alone instead
 * of piling timeouts onto the node until its breaker opens for everyone.
 */
export class Bulkhead {
  #running = 0;
  readonly #queue: Waiter[] = [];
  readonly #options: BulkheadOptions;

  constructor(options: BulkheadOptions) {
    this.#options = options;
  }

  get running(): number { return this.#running; }
  get queued(): number { return this.#queue.length; }

  /**
   * A slot, released by calling the returned function once. Rejects with `'full'` when the
   * queue is full, `'timeout'` when `waitMs` passes first, `'cancelled'` when `signal` aborts.
   */
  acquire(waitMs: number, signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(new BulkheadRefusal('cancelled'));
    if (this.#running < this.#options.maxConcurrent) {
      this.#running += 1;
      return Promise.resolve(this.#releaser());
    }
    if (this.#queue.length >= this.#options.maxQueued) return Promise.reject(new BulkheadRefusal('full'));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => waiter.refuse('timeout'), Math.max(0, waitMs));
      const onAbort = () => waiter.refuse('cancelled');
      const settle = () => { clearTimeout(timer); signal?.removeEventListener('abort', onAbort); };
      const waiter: Waiter = {
        grant: () => { settle(); resolve(this.#releaser()); },
        refuse: (reason) => {
          settle();
          const index = this.#queue.indexOf(waiter);
          if (index >= 0) this.#queue.splice(index, 1);
          reject(new BulkheadRefusal(reason));
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#queue.push(waiter);
    });
  }

  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#queue.shift();
      // The slot passes straight to the next waiter, so `running` stays the same.
      if (next) next.grant();
      else this.#running -= 1;
    };
  }
}

export class BulkheadRefusal extends Error {
  readonly reason: 'full' | 'cancelled' | 'timeout';
  constructor(reason: 'full' | 'cancelled' | 'timeout') {
    super(`bulkhead ${reason}`);
    this.name = 'BulkheadRefusal';
    this.reason = reason;
  }
}

/** A refused wait for a slot as the upstream error the caller sees; raised here, so never breaker-counted. */
export function refusalError(error: unknown, upstream: string, operation: string): unknown {
  if (!(error instanceof BulkheadRefusal)) return error;
  if (error.reason === 'full') {
    return new UpstreamError('overloaded', upstream, operation, `${operation}: too many calls waiting for ${upstream}`, { local: true, retryAfterMs: 1_000 });
  }
  if (error.reason === 'cancelled') return new UpstreamError('cancelled', upstream, operation, `${operation}: cancelled by the caller`, { local: true });
  return new UpstreamError('timeout', upstream, operation, `${operation}: the request's time budget ran out waiting for ${upstream}`, { local: true });
}
