import { UpstreamError } from './errors.js';
import { isCancelled, listenForCancel, type CallCancel } from './request-cancellation.js';

export interface BulkheadOptions {
  /** Calls in flight to one upstream at a time. */
  maxConcurrent: number;
  /** Calls waiting for a slot; one more is refused at once. */
  maxQueued: number;
  /**
   * Slots one tenant may hold at once (default: all of them). Below `maxConcurrent`, a tenant
   * whose calls are slow (or kept open by the tenant itself) cannot hold every slot: the rest
   * stay free for the others, and its further calls wait in its own queue.
   */
  maxConcurrentPerTenant?: number;
  /** Calls one tenant may have waiting (default: `maxQueued`), so one tenant cannot fill the queue for all. */
  maxQueuedPerTenant?: number;
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
 * A tenant holds at most `maxConcurrentPerTenant` slots and queues at most `maxQueuedPerTenant`
 * calls: turns alone did not stop a tenant whose calls each hold a slot for seconds (a gRPC call
 * whose body never comes) from holding all of them, so that every other tenant got one slot per
 * slot the tenant gave back.
 */
export class Bulkhead {
  #running = 0;
  #queued = 0;
  /** Slots held per tenant (only tenants holding one). */
  readonly #runningBy = new Map<string, number>();
  /**
   * Waiters per tenant, in arrival order; the map's order is the round-robin turn. Made when
   * the first caller waits: most bulkheads (one per request, for its fan-out) never queue.
   */
  #queues: Map<string, Waiter[]> | undefined;
  readonly #options: BulkheadOptions;
  readonly #perTenant: number;
  readonly #queuedPerTenant: number;

  constructor(options: BulkheadOptions) {
    this.#options = options;
    this.#perTenant = Math.max(1, Math.min(options.maxConcurrentPerTenant ?? options.maxConcurrent, options.maxConcurrent));
    this.#queuedPerTenant = Math.min(options.maxQueuedPerTenant ?? options.maxQueued, options.maxQueued);
  }

  get running(): number { return this.#running; }
  get queued(): number { return this.#queued; }
  /** Slots `tenant` holds now. */
  runningFor(tenant = ''): number { return this.#runningBy.get(tenant) ?? 0; }

  /**
   * A free slot now, released by calling the returned function once; undefined when the caller
   * must wait (then `acquire`). No promise is made, so an uncontended call costs only its
   * releaser. It never jumps the queue: a slot is free to a tenant only while none of its
   * waiters could take it, since a released slot passes straight to the next waiter that may
   * hold one (`#releaser`).
   */
  tryAcquire(tenant = ''): (() => void) | undefined {
    if (!this.#free(tenant)) return undefined;
    return this.#take(tenant);
  }

  /**
   * A slot, released by calling the returned function once. Rejects with `'full'` when the
   * queue (or the tenant's share of it) is full, `'timeout'` when `waitMs` passes first,
   * `'cancelled'` when `cancel` fires.
   */
  acquire(waitMs: number, cancel?: CallCancel, tenant = ''): Promise<() => void> {
    if (isCancelled(cancel)) return Promise.reject(new BulkheadRefusal('cancelled'));
    if (this.#free(tenant)) return Promise.resolve(this.#take(tenant));
    if (this.#queued >= this.#options.maxQueued) return Promise.reject(new BulkheadRefusal('full'));
    const queue = this.#queues?.get(tenant);
    if ((queue?.length ?? 0) >= this.#queuedPerTenant) return Promise.reject(new BulkheadRefusal('full'));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => waiter.refuse('timeout'), Math.max(0, waitMs));
      const stopListening = cancel ? listenForCancel(cancel, () => waiter.refuse('cancelled')) : undefined;
      const settle = () => { clearTimeout(timer); stopListening?.(); };
      const waiter: Waiter = {
        grant: () => { settle(); resolve(this.#releaser(tenant)); },
        refuse: (reason) => {
          settle();
          this.#remove(tenant, waiter);
          reject(new BulkheadRefusal(reason));
        },
      };
      const queues = (this.#queues ??= new Map());
      const own = queues.get(tenant);
      if (own) own.push(waiter);
      else queues.set(tenant, [waiter]);
      this.#queued += 1;
    });
  }

  #free(tenant: string): boolean {
    return this.#running < this.#options.maxConcurrent && this.runningFor(tenant) < this.#perTenant;
  }

  #take(tenant: string): () => void {
    this.#running += 1;
    this.#runningBy.set(tenant, this.runningFor(tenant) + 1);
    return this.#releaser(tenant);
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

  /**
   * The first waiter of the first tenant, in turn, that may hold one more slot; that tenant then
   * goes to the back. Tenants at their share are passed over and keep their place.
   */
  #next(): { tenant: string; waiter: Waiter } | undefined {
    const queues = this.#queues;
    // Nearly every release finds nobody waiting: then no iterator is made.
    if (this.#queued === 0 || queues === undefined) return undefined;
    for (const [tenant, queue] of queues) {
      if (this.runningFor(tenant) >= this.#perTenant) continue;
      const waiter = queue.shift()!;
      this.#queued -= 1;
      queues.delete(tenant);
      if (queue.length > 0) queues.set(tenant, queue);
      return { tenant, waiter };
    }
    return undefined;
  }

  #releaser(tenant: string): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#running -= 1;
      const held = this.runningFor(tenant) - 1;
      if (held > 0) this.#runningBy.set(tenant, held);
      else this.#runningBy.delete(tenant);
      // The freed slot goes straight to the next waiter that may hold one.
      const next = this.#next();
      if (next) {
        this.#running += 1;
        this.#runningBy.set(next.tenant, this.runningFor(next.tenant) + 1);
        next.waiter.grant();
      }
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
