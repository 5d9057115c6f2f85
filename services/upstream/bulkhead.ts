import { UpstreamError } from './errors.js';
import { isCancelled, listenForCancel, type CallCancel } from './request-cancellation.js';

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
 * `maxQueued` wait, and a caller that finds the queue full is refused (`'full'`) without
 * touching the others. Waiters are queued per tenant and a freed slot goes to the tenants in
 * turn, so heavy load from one organization waits behind itself, not in front of everyone else.
 */
export class Bulkhead {
  #running = 0;
  #queued = 0;
  /**
   * Waiters per tenant, in arrival order; the map's order is the round-robin turn. Made when
   * the first caller waits: most bulkheads (one per request, for its fan-out) never queue.
   */
  #queues: Map<string, Waiter[]> | undefined;
  readonly #options: BulkheadOptions;

  constructor(options: BulkheadOptions) {
    this.#options = options;
  }

  get running(): number { return this.#running; }
  get queued(): number { return this.#queued; }

  /**
   * A free slot now, released by calling the returned function once; undefined when the caller
   * must wait (then `acquire`). No promise is made, so an uncontended call costs only its
   * releaser. It never jumps the queue: a slot is free only while nobody waits, since a released
   * slot passes straight to the next waiter (`#releaser`).
   */
  tryAcquire(): (() => void) | undefined {
    if (this.#running >= this.#options.maxConcurrent) return undefined;
    this.#running += 1;
    return this.#releaser();
  }

  /**
   * A slot, released by calling the returned function once. Rejects with `'full'` when the
   * queue is full, `'timeout'` when `waitMs` passes first, `'cancelled'` when `cancel` fires.
   */
  acquire(waitMs: number, cancel?: CallCancel, tenant = ''): Promise<() => void> {
    if (isCancelled(cancel)) return Promise.reject(new BulkheadRefusal('cancelled'));
    if (this.#running < this.#options.maxConcurrent) {
      this.#running += 1;
      return Promise.resolve(this.#releaser());
    }
    if (this.#queued >= this.#options.maxQueued) return Promise.reject(new BulkheadRefusal('full'));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => waiter.refuse('timeout'), Math.max(0, waitMs));
      const stopListening = cancel ? listenForCancel(cancel, () => waiter.refuse('cancelled')) : undefined;
      const settle = () => { clearTimeout(timer); stopListening?.(); };
      const waiter: Waiter = {
        grant: () => { settle(); resolve(this.#releaser()); },
        refuse: (reason) => {
          settle();
          this.#remove(tenant, waiter);
          reject(new BulkheadRefusal(reason));
        },
      };
      const queues = (this.#queues ??= new Map());
      const queue = queues.get(tenant);
      if (queue) queue.push(waiter);
      else queues.set(tenant, [waiter]);
      this.#queued += 1;
    });
  }

  #remove(tenant: string, waiter: Waiter): void {
    const queues = this.#queues;
    const queue = queues?.get(tenant);
    const index = queue?.indexOf(waiter) ?? -1;
    if (!queues || !queue || index < 0) return;
    queue.splice(index, 1);
    this.#queued -= 1;
    if (queue.length === 0) queues.delete(tenant);
  }

  /** The first waiter of the tenant whose turn it is; that tenant then goes to the back. */
  #next(): Waiter | undefined {
    const queues = this.#queues;
    // Nearly every release finds nobody waiting: then no iterator is made.
    if (this.#queued === 0 || queues === undefined) return undefined;
    const first = queues.entries().next();
    if (first.done) return undefined;
    const [tenant, queue] = first.value;
    const waiter = queue.shift()!;
    this.#queued -= 1;
    queues.delete(tenant);
    if (queue.length > 0) queues.set(tenant, queue);
    return waiter;
  }

  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#next();
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
