import { describe, expect, it } from 'vitest';
import { creditPeriod } from './period.js';

describe('the credit period', () => {
  it('credits replenish on the 1st of the month, 00:00 UTC (short months and year ends included)', () => {
    expect(creditPeriod(Date.UTC(2026, 1, 28, 23, 59))).toEqual({ startMs: Date.UTC(2026, 1, 1), replenishAtMs: Date.UTC(2026, 2, 1) });
    expect(creditPeriod(Date.UTC(2026, 11, 31, 12))).toEqual({ startMs: Date.UTC(2026, 11, 1), replenishAtMs: Date.UTC(2027, 0, 1) });
  });
});
