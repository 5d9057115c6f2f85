import { describe, expect, it } from 'vitest';
import { allowanceOpensAt, WINDOW_OPENING_MARGIN_MS, type AllowanceWindow } from './allowance-window.js';

const at = (iso: string) => Date.parse(iso);
const PRICE = 490_000_000n;

describe('allowanceOpensAt: a charge waits for the allowance window that can take it', () => {
  // An annual allowance whose first spend landed on the chain 3 s after our period start (a leap day).
  const annual: AllowanceWindow = { periodLimit: PRICE, windowMonths: 12, windowStartMs: at('2028-02-29T10:00:03.000Z'), month: 202802, periodSpent: PRICE };

  it('an annual renewal due on the anniversary waits for the chain’s window (Feb 29 → Feb 28), plus the margin', () => {
    expect(allowanceOpensAt(annual, PRICE, at('2029-02-28T10:00:00.000Z'))).toBe(at('2029-02-28T10:00:03.000Z') + WINDOW_OPENING_MARGIN_MS);
  });

  it('once the window has opened the charge is taken now; the year after, the grid stays on the first spend', () => {
    expect(allowanceOpensAt(annual, PRICE, at('2029-02-28T10:00:03.000Z'))).toBe(at('2029-02-28T10:00:03.000Z'));
    const renewed = { ...annual, month: 202902 };
    expect(allowanceOpensAt(renewed, PRICE, at('2030-02-28T10:00:00.000Z'))).toBe(at('2030-02-28T10:00:03.000Z') + WINDOW_OPENING_MARGIN_MS);
    expect(allowanceOpensAt(renewed, PRICE, at('2032-03-01T00:00:00.000Z'))).toBe(at('2032-03-01T00:00:00.000Z'));
  });

  it('room left in the window, no spend yet, or no limit: now', () => {
    expect(allowanceOpensAt({ ...annual, periodSpent: 0n }, PRICE, at('2028-06-01T00:00:00.000Z'))).toBe(at('2028-06-01T00:00:00.000Z'));
    expect(allowanceOpensAt({ ...annual, windowStartMs: 0, periodSpent: 0n, month: 0 }, PRICE, 5)).toBe(5);
    expect(allowanceOpensAt({ ...annual, periodLimit: 0n }, PRICE, 5)).toBe(5);
  });

  it('an amount above one window’s limit never fits: null (a decline, not a wait)', () => {
    expect(allowanceOpensAt(annual, PRICE + 1n, at('2029-03-01T00:00:00.000Z'))).toBeNull();
  });

  it('monthly: a first charge that landed in the next calendar month makes the renewal wait for the month after', () => {
    const monthly: AllowanceWindow = { periodLimit: 49_000_000n, windowMonths: 1, windowStartMs: 0, month: 202702, periodSpent: 49_000_000n };
    expect(allowanceOpensAt(monthly, 49_000_000n, at('2027-02-28T23:59:59.990Z'))).toBe(at('2027-03-01T00:00:00.000Z') + WINDOW_OPENING_MARGIN_MS);
    expect(allowanceOpensAt(monthly, 49_000_000n, at('2027-03-31T23:59:59.990Z'))).toBe(at('2027-03-31T23:59:59.990Z'));
  });
});
