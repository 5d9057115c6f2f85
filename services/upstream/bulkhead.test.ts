import { describe, expect, it } from 'vitest';
import { Bulkhead, BulkheadRefusal } from './bulkhead.js';

describe('Bulkhead', () => {
  it('runs up to maxConcurrent, queues up to maxQueued, refuses the next caller at once', async () => {
    const bulkhead = new Bulkhead({ maxConcurrent: 2, maxQueued: 1 });
    const a = await bulkhead.acquire(1_000);
    await bulkhead.acquire(1_000);
    const queued = bulkhead.acquire(1_000);
    await expect(bulkhead.acquire(1_000)).rejects.toEqual(new BulkheadRefusal('full'));
    expect([bulkhead.running, bulkhead.queued]).toEqual([2, 1]);
    a();
    a(); // releasing twice frees one slot only
    await queued;
    expect([bulkhead.running, bulkhead.queued]).toEqual([2, 0]);
  });

  it('gives freed slots to tenants in turn, so one tenant\'s backlog does not go first', async () => {
    const bulkhead = new Bulkhead({ maxConcurrent: 1, maxQueued: 100 });
    const first = await bulkhead.acquire(1_000, undefined, 'heavy');
    const order: string[] = [];
    const waits = [
      ...Array.from({ length: 5 }, (_, i) => bulkhead.acquire(1_000, undefined, 'heavy').then((release) => { order.push(`heavy${i}`); release(); })),
      bulkhead.acquire(1_000, undefined, 'light').then((release) => { order.push('light'); release(); }),
    ];
    first();
    await Promise.all(waits);
    expect(order.indexOf('light')).toBe(1);
  });

  it('a waiter leaves the queue when its time runs out or its caller goes away', async () => {
    const bulkhead = new Bulkhead({ maxConcurrent: 1, maxQueued: 10 });
    await bulkhead.acquire(1_000);
    await expect(bulkhead.acquire(10)).rejects.toEqual(new BulkheadRefusal('timeout'));
    const caller = new AbortController();
    const waiting = bulkhead.acquire(10_000, caller.signal);
    caller.abort();
    await expect(waiting).rejects.toEqual(new BulkheadRefusal('cancelled'));
    expect(bulkhead.queued).toBe(0);
  });
});

describe('Bulkhead.tryAcquire', () => {
  it('takes a free slot at once and gives it back with its releaser', () => {
    const bulkhead = new Bulkhead({ maxConcurrent: 2, maxQueued: 1 });
    const release = bulkhead.tryAcquire();
    expect(release).toBeTypeOf('function');
    expect(bulkhead.running).toBe(1);
    release!();
    release!(); // releasing twice frees one slot only
    expect(bulkhead.running).toBe(0);
  });

  it('answers undefined when every slot is taken, and queues nothing', () => {
    const bulkhead = new Bulkhead({ maxConcurrent: 2, maxQueued: 1 });
    expect(bulkhead.tryAcquire()).toBeTypeOf('function');
    expect(bulkhead.tryAcquire()).toBeTypeOf('function');
    expect(bulkhead.tryAcquire()).toBeUndefined();
    expect([bulkhead.running, bulkhead.queued]).toEqual([2, 0]);
  });

  it('does not jump the queue: a slot released while others wait goes to the waiter', async () => {
    const bulkhead = new Bulkhead({ maxConcurrent: 1, maxQueued: 10 });
    const held = bulkhead.tryAcquire()!;
    const order: string[] = [];
    const waiting = bulkhead.acquire(1_000, undefined, 'first').then((release) => { order.push('first'); return release; });
    held();
    expect(bulkhead.tryAcquire()).toBeUndefined();
    (await waiting)();
    expect(order).toEqual(['first']);
    expect(bulkhead.tryAcquire()).toBeTypeOf('function');
  });
});
