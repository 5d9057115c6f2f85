import { describe, expect, it } from 'vitest';
import { CircuitBreaker } from './circuit-breaker.js';

describe('CircuitBreaker', () => {
  const make = () => {
    let now = 0;
    const breaker = new CircuitBreaker({ failureThreshold: 3, cooldownMs: 1000, now: () => now });
    return { breaker, advance: (ms: number) => { now += ms; } };
  };

  it('opens after the threshold of consecutive failures and fails fast', () => {
    const { breaker } = make();
    for (let i = 0; i < 3; i += 1) { expect(breaker.tryAcquire()).toBe(true); breaker.recordFailure(); }
    expect(breaker.state).toBe('open');
    expect(breaker.tryAcquire()).toBe(false);
  });

  it('a success resets the failure count', () => {
    const { breaker } = make();
    breaker.recordFailure(); breaker.recordFailure(); breaker.recordSuccess(); breaker.recordFailure();
    expect(breaker.state).toBe('closed');
  });

  it('lets one probe through after the cooldown, closing on success', () => {
    const { breaker, advance } = make();
    for (let i = 0; i < 3; i += 1) breaker.recordFailure();
    advance(1000);
    expect(breaker.state).toBe('half_open');
    expect(breaker.tryAcquire()).toBe(true);
    expect(breaker.tryAcquire()).toBe(false);
    breaker.recordSuccess();
    expect(breaker.state).toBe('closed');
  });

  it('re-opens when the probe fails', () => {
    const { breaker, advance } = make();
    for (let i = 0; i < 3; i += 1) breaker.recordFailure();
    advance(1000);
    breaker.tryAcquire();
    breaker.recordFailure();
    expect(breaker.state).toBe('open');
  });

  it('says which call moved it: the failure that opened it, a failed probe, the success that closed it (once each)', () => {
    const { breaker, advance } = make();
    expect([breaker.recordFailure(), breaker.recordFailure(), breaker.recordFailure()]).toEqual([false, false, true]);
    expect(breaker.failures).toBe(3);
    // A call let through before it opened fails late: still open, nothing new to report.
    expect(breaker.recordFailure()).toBe(false);
    advance(1000);
    expect(breaker.tryAcquire()).toBe(true);
    expect(breaker.recordFailure()).toBe(true);
    advance(1000);
    expect(breaker.tryAcquire()).toBe(true);
    expect([breaker.recordSuccess(), breaker.recordSuccess()]).toEqual([true, false]);
    expect(breaker.failures).toBe(0);
  });
});
