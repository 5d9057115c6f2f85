import { describe, expect, it } from 'vitest';
import { ManualClock } from '../core/index.js';
import { UnknownKeyBudget } from './unknown-key-budget.js';

describe('UnknownKeyBudget', () => {
  it('refills by the clock, and a clock set back neither refills nor drains it', () => {
    const clock = new ManualClock(Date.UTC(2026, 11, 7, 12));
    const budget = new UnknownKeyBudget(clock, 60);
    for (let i = 0; i < 59; i += 1) expect(budget.take('192.0.2.1')).toBe(0);
    // A day back: it used to count -86,400 s of refill, which left the client refused for a day.
    clock.set(Date.UTC(2026, 11, 6, 12));
    expect(budget.take('192.0.2.1')).toBe(0);
    expect(budget.take('192.0.2.1')).toBe(1_000);
    clock.advance(1_000);
    expect(budget.take('192.0.2.1')).toBe(0);
    expect(budget.take('192.0.2.1')).toBe(1_000);
  });
});
