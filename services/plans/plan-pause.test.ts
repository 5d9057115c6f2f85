import { describe, expect, it } from 'vitest';
import { pausedAcrossOrganizations, pausedBeyondPlan } from './plan-pause.js';

describe('pausedBeyondPlan', () => {
  it('keeps the oldest `limit` items and pauses the newest', () => {
    expect(pausedBeyondPlan(['a', 'b', 'c', 'd'], 1)).toEqual(['b', 'c', 'd']);
    expect(pausedBeyondPlan(['a', 'b', 'c', 'd'], 3)).toEqual(['d']);
  });

  it('pauses nothing within the limit, everything at a limit of 0', () => {
    expect(pausedBeyondPlan(['a', 'b'], 2)).toEqual([]);
    expect(pausedBeyondPlan(['a', 'b'], 5)).toEqual([]);
    expect(pausedBeyondPlan(['a', 'b'], 0)).toEqual(['a', 'b']);
  });
});

describe('pausedAcrossOrganizations', () => {
  const item = (id: string, organization: string, subscriptionStatus: string | null) =>
    ({ id, organization_id: organization, tier: 'free', subscription_plan: subscriptionStatus === null ? null : 'team', subscription_status: subscriptionStatus });

  it('applies each organization’s own plan from its row: a plan in force keeps its count, an ended one falls back to the tier', () => {
    const rows = [
      item('a1', 'a', null), item('b1', 'b', 'active'), item('c1', 'c', 'ended'),
      item('a2', 'a', null), item('b2', 'b', 'active'), item('c2', 'c', 'ended'),
    ];
    // free: 1 stream; team: 5.
    expect(pausedAcrossOrganizations(rows, (plan) => plan.streams)).toEqual(new Set(['a2', 'c2']));
  });
});
