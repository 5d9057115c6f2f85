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

describe('Bulkhead per-tenant share', () => {
  it('a tenant holding its share waits while the slots left stay free for others', async () => {
    const bulkhead = new Bulkhead({ maxConcurrent: 4, maxQueued: 100, maxConcurrentPerTenant: 2 });
    // The heavy tenant's calls are slow (they keep their slots): it gets two, the rest wait.
    const heavy = [bulkhead.tryAcquire('heavy'), bulkhead.tryAcquire('heavy')];
    expect(heavy.every((release) => typeof release === 'function')).toBe(true);
    expect(bulkhead.tryAcquire('heavy')).toBeUndefined();
    const caller = new AbortController();
    const heavyWaits = Array.from({ length: 5 }, () => bulkhead.acquire(10_000, caller.signal, 'heavy'));
    expect([bulkhead.running, bulkhead.queued, bulkhead.runningFor('heavy')]).toEqual([2, 5, 2]);
    // Another tenant gets a slot at once, without waiting behind the heavy tenant's calls.
    const light = bulkhead.tryAcquire('light');
    expect(light).toBeTypeOf('function');
    const light2 = await bulkhead.acquire(10_000, undefined, 'light');
    expect([bulkhead.running, bulkhead.runningFor('light')]).toEqual([4, 2]);
    // A slot the light tenant gives back does not go to the heavy tenant (at its share).
    light!();
    expect([bulkhead.running, bulkhead.queued, bulkhead.runningFor('heavy')]).toEqual([3, 5, 2]);
    expect(bulkhead.tryAcquire('other')).toBeTypeOf('function');
    // The heavy tenant's own release passes its slot to its next waiter.
    heavy[0]!();
    const granted = await heavyWaits[0]!;
    expect([bulkhead.running, bulkhead.queued, bulkhead.runningFor('heavy')]).toEqual([4, 4, 2]);
    granted();
    light2();
    expect(bulkhead.runningFor('heavy')).toBe(2);
    expect(bulkhead.queued).toBe(3);
    caller.abort();
    await Promise.allSettled(heavyWaits);
    expect(bulkhead.queued).toBe(0);
  });

  it('a tenant at its share of the queue is refused at once; another tenant still queues', async () => {
    const bulkhead = new Bulkhead({ maxConcurrent: 1, maxQueued: 10, maxQueuedPerTenant: 3 });
    const held = bulkhead.tryAcquire('heavy')!;
    const waits = Array.from({ length: 3 }, () => bulkhead.acquire(10_000, undefined, 'heavy'));
    await expect(bulkhead.acquire(10_000, undefined, 'heavy')).rejects.toEqual(new BulkheadRefusal('full'));
    const light = bulkhead.acquire(10_000, undefined, 'light');
    expect(bulkhead.queued).toBe(4);
    held();
    // Turns: the heavy tenant queued first, then light.
    (await waits[0]!)();
    (await light)();
    for (const wait of waits.slice(1)) (await wait)();
    expect([bulkhead.running, bulkhead.queued]).toEqual([0, 0]);
  });
});
