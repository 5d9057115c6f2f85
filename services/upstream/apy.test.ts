import { describe, expect, it } from 'vitest';
import { apyFromRates, apyWindow } from './apy.js';

const DAY = 86_400_000n;

describe('apyFromRates', () => {
  it('annualizes per-epoch compounding over the window', () => {
    // 30 daily epochs at +0.01% each → (1.0001^30)^(365/30) - 1 = 1.0001^365 - 1
    const earlier = { epoch: 100n, suiAmount: 1_000_000_000n, poolTokenAmount: 1_000_000_000n };
    const latest = { epoch: 130n, suiAmount: BigInt(Math.round(1e9 * 1.0001 ** 30)), poolTokenAmount: 1_000_000_000n };
    expect(apyFromRates(latest, earlier, DAY)).toBeCloseTo(1.0001 ** 365 - 1, 5);
  });

  it('accounts for the epoch length', () => {
    const earlier = { epoch: 0n, suiAmount: 100n, poolTokenAmount: 100n };
    const latest = { epoch: 1n, suiAmount: 101n, poolTokenAmount: 100n };
    const daily = apyFromRates(latest, earlier, DAY);
    const twoDaily = apyFromRates(latest, earlier, 2n * DAY);
    expect(daily).toBeGreaterThan(twoDaily);
    expect(twoDaily).toBeCloseTo(1.01 ** 182.5 - 1, 6);
  });

  it('is 0 without two epochs, with shrinking rates or empty pools', () => {
    const r = { epoch: 5n, suiAmount: 10n, poolTokenAmount: 10n };
    expect(apyFromRates(r, undefined, DAY)).toBe(0);
    expect(apyFromRates(r, r, DAY)).toBe(0);
    expect(apyFromRates({ epoch: 6n, suiAmount: 9n, poolTokenAmount: 10n }, r, DAY)).toBe(0);
    expect(apyFromRates({ epoch: 6n, suiAmount: 0n, poolTokenAmount: 0n }, { epoch: 1n, suiAmount: 0n, poolTokenAmount: 0n }, DAY)).toBe(0);
  });

  it('the window starts 30 epochs back, never before activation', () => {
    expect(apyWindow(100n, 0n)).toEqual({ from: 70n, to: 100n });
    expect(apyWindow(100n, 90n)).toEqual({ from: 90n, to: 100n });
    expect(apyWindow(10n, undefined)).toEqual({ from: 0n, to: 10n });
  });
});
