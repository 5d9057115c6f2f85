import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { UpstreamError } from './errors.js';
import { RequestCancellation } from './request-cancellation.js';
import { waitWithin } from './shared-work.js';

function held<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const work = new Promise<T>((res, rej) => { resolve = res; reject = rej; });
  return { work, resolve, reject };
}

/** The settled outcome so far: a value, an UpstreamError's kind, or 'pending'. */
function outcomeOf<T>(promise: Promise<T>) {
  const seen: { outcome: T | string } = { outcome: 'pending' };
  promise.then((value) => { seen.outcome = value; }, (error: unknown) => { seen.outcome = error instanceof UpstreamError ? `${error.kind}${error.local ? ' (local)' : ''}` : String(error); });
  return seen;
}

describe('waitWithin: one caller\'s wait for shared work', () => {
  beforeEach(() => { vi.useFakeTimers({ now: 1_000_000 }); });
  afterEach(() => { vi.useRealTimers(); });

  it('ends at the caller\'s deadline, not a millisecond before; the work goes on for a caller with time left', async () => {
    const { work, resolve } = held<string>();
    const short = outcomeOf(waitWithin(work, Date.now() + 1_000, undefined, 'mainnet', 'stats'));
    const long = outcomeOf(waitWithin(work, Date.now() + 5_000, undefined, 'mainnet', 'stats'));
    await vi.advanceTimersByTimeAsync(999);
    expect(short.outcome).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    expect(short.outcome).toBe('timeout (local)');
    resolve('read');
    await vi.advanceTimersByTimeAsync(0);
    expect([short.outcome, long.outcome]).toEqual(['timeout (local)', 'read']);
  });

  it('a caller\'s cancel ends its own wait only', async () => {
    const { work, resolve } = held<string>();
    const cancel = new RequestCancellation();
    const leaving = outcomeOf(waitWithin(work, Date.now() + 5_000, cancel, 'mainnet', 'stats'));
    const staying = outcomeOf(waitWithin(work, Date.now() + 5_000, new RequestCancellation(), 'mainnet', 'stats'));
    cancel.cancel();
    await vi.advanceTimersByTimeAsync(0);
    expect([leaving.outcome, staying.outcome]).toEqual(['cancelled (local)', 'pending']);
    resolve('read');
    await vi.advanceTimersByTimeAsync(0);
    expect(staying.outcome).toBe('read');
  });

  it('a caller already gone or out of time fails at once; the work\'s own failure reaches every caller as it is', async () => {
    const { work, reject } = held<string>();
    const gone = new RequestCancellation();
    gone.cancel();
    const cancelled = outcomeOf(waitWithin(work, Date.now() + 5_000, gone, 'mainnet', 'stats'));
    const spent = outcomeOf(waitWithin(work, Date.now(), undefined, 'mainnet', 'stats'));
    const waiting = outcomeOf(waitWithin(work, Date.now() + 5_000, undefined, 'mainnet', 'stats'));
    await vi.advanceTimersByTimeAsync(0);
    expect([cancelled.outcome, spent.outcome, waiting.outcome]).toEqual(['cancelled (local)', 'timeout (local)', 'pending']);
    reject(new UpstreamError('unavailable', 'mainnet/grpc', 'GetServiceInfo', 'connection refused'));
    await vi.advanceTimersByTimeAsync(0);
    expect(waiting.outcome).toBe('unavailable');
  });
});
