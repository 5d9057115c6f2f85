import { describe, expect, it } from 'vitest';
import { creditPeriod } from './period.js';
import { PLANS, planOf, projectLimit } from './plans.js';

describe('plans', () => {
  it('carries the spec\'s proofs per minute and the wallet organization\'s one project', () => {
    expect([PLANS.team, PLANS.growth, PLANS.professional, PLANS.business, PLANS.enterprise].map((p) => p.proofsPerMinute)).toEqual([20, 60, 120, 300, null]);
    expect(projectLimit('wallet')).toBe(1);
  });

  it('an organization\'s plan: its subscription while in force, else its tier, else Free', () => {
    expect(planOf({ tier: 'team', subscription: null }).id).toBe('team');
    expect(planOf({ tier: 'free', subscription: { plan: 'growth', status: 'past_due', periodEnd: null } }).id).toBe('growth');
    expect(planOf({ tier: 'team', subscription: { plan: 'business', status: 'ended', periodEnd: null } }).id).toBe('team');
    expect(planOf({ tier: 'platinum', subscription: null }).id).toBe('free');
    expect(projectLimit('platinum')).toBe(PLANS.free.projects);
  });

  it('credits replenish on the 1st of the month, 00:00 UTC (short months and year ends included)', () => {
    expect(creditPeriod(Date.UTC(2026, 1, 28, 23, 59))).toEqual({ startMs: Date.UTC(2026, 1, 1), replenishAtMs: Date.UTC(2026, 2, 1) });
    expect(creditPeriod(Date.UTC(2026, 11, 31, 12))).toEqual({ startMs: Date.UTC(2026, 11, 1), replenishAtMs: Date.UTC(2027, 0, 1) });
  });
});
