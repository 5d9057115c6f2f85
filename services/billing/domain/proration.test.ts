import { describe, expect, it } from 'vitest';
import { proratedUpgradeCharge } from './proration.js';
import { MONTHLY_PRICE, formatUsdc, periodPrice } from './prices.js';

const DAY = 86_400_000;

describe('proratedUpgradeCharge (Billing rule 6)', () => {
  const periodStart = Date.UTC(2027, 0, 1);
  const periodEnd = Date.UTC(2027, 1, 1); // 31 days
  it('team → growth with 10 of 31 days left: 199 − 49 × 10/31', () => {
    const result = proratedUpgradeCharge({ newPrice: MONTHLY_PRICE.growth, oldPrice: MONTHLY_PRICE.team, periodStart, periodEnd, now: periodEnd - 10 * DAY });
    expect(result.credit).toBe((49_000_000n * 10n) / 31n);
    expect(result.charge).toBe(199_000_000n - 15_806_451n);
  });
  it('at the start of the period the whole old price is credited; at its end nothing', () => {
    expect(proratedUpgradeCharge({ newPrice: 199n, oldPrice: 49n, periodStart, periodEnd, now: periodStart }).charge).toBe(150n);
    expect(proratedUpgradeCharge({ newPrice: 199n, oldPrice: 49n, periodStart, periodEnd, now: periodEnd }).charge).toBe(199n);
    expect(proratedUpgradeCharge({ newPrice: 199n, oldPrice: 49n, periodStart, periodEnd, now: periodEnd + DAY }).charge).toBe(199n);
  });
  it('never negative', () => {
    expect(proratedUpgradeCharge({ newPrice: 10n, oldPrice: 49n, periodStart, periodEnd, now: periodStart }).charge).toBe(0n);
  });
});

describe('prices (Billing rule 1)', () => {
  it('team 49, growth 199, professional 499, business 999 USDC a month, in micro-USDC', () => {
    expect(Object.fromEntries(Object.entries(MONTHLY_PRICE).map(([tier, price]) => [tier, formatUsdc(price)]))).toEqual({ team: '49.00', growth: '199.00', professional: '499.00', business: '999.00' });
    expect(periodPrice('growth', 'year')).toBe(1_990_000_000n);
  });
});
