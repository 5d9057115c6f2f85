import { describe, expect, it } from 'vitest';
import { Bulkhead, BulkheadRefusal } from './bulkhead.js';
import { isCancelled, listenForCancel, RequestCancellation, signalOf } from './request-cancellation.js';

describe('RequestCancellation', () => {
  it('runs each hook once on cancel, not the ones taken off, and none after', () => {
    const cancellation = new RequestCancellation();
    const calls: string[] = [];
    const kept = () => calls.push('kept');
    const removed = () => calls.push('removed');
    cancellation.onCancel(kept);
    cancellation.onCancel(removed);
    cancellation.offCancel(removed);
    cancellation.cancel();
    cancellation.cancel();
    cancellation.onCancel(() => calls.push('late'));
    expect(calls).toEqual(['kept']);
    expect(isCancelled(cancellation)).toBe(true);
  });

  it('makes its AbortSignal only when asked, aborted with it or already aborted', () => {
    const before = new RequestCancellation();
    const signal = signalOf(before)!;
    expect(signal.aborted).toBe(false);
    before.cancel();
    expect(signal.aborted).toBe(true);
    const after = new RequestCancellation();
    after.cancel();
    expect(after.signal.aborted).toBe(true);
  });

  it('listens alike on a RequestCancellation and on an AbortSignal', () => {
    const fired: string[] = [];
    const cancellation = new RequestCancellation();
    const controller = new AbortController();
    listenForCancel(cancellation, () => fired.push('request'));
    const stop = listenForCancel(controller.signal, () => fired.push('signal'));
    stop();
    cancellation.cancel();
    controller.abort();
    expect(fired).toEqual(['request']);
  });

  it('ends a bulkhead wait when the request is cancelled', async () => {
    const bulkhead = new Bulkhead({ maxConcurrent: 1, maxQueued: 1 });
    const release = await bulkhead.acquire(10_000);
    const cancellation = new RequestCancellation();
    const waiting = bulkhead.acquire(10_000, cancellation).catch((error: unknown) => error);
    cancellation.cancel();
    const refusal = await waiting;
    expect(refusal).toBeInstanceOf(BulkheadRefusal);
    expect((refusal as BulkheadRefusal).reason).toBe('cancelled');
    expect(bulkhead.queued).toBe(0);
    release();
    await expect(bulkhead.acquire(10, cancellation)).rejects.toBeInstanceOf(BulkheadRefusal);
  });
});
