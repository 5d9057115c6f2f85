import { describe, expect, it } from 'vitest';
import { pausedBeyondPlan } from './plan-pause.js';

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
