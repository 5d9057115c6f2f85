import { describe, expect, it } from 'vitest';
import { InvalidTransition, PLAN_STATES, PLAN_TRIGGERS, TRANSITIONS, transition } from './plan-state.js';

describe('the plan state machine (spec: On-chain plan states)', () => {
  it('has every row of the spec’s table', () => {
    const spec = [
      [null, 'activate', 'awaiting_first_charge'],
      ['awaiting_first_charge', 'charge_succeeded', 'active'],
      ['active', 'charge_failed', 'past_due'],
      ['past_due', 'final_charge_failed', 'ended'],
      ['active', 'cancel', 'cancel_pending'],
      ['cancel_pending', 'period_ended', 'ended'],
      ['awaiting_first_charge', 'allowance_revoked', 'cancel_pending'],
      ['active', 'allowance_revoked', 'cancel_pending'],
      ['past_due', 'allowance_revoked', 'cancel_pending'],
    ];
    for (const [from, trigger, to] of spec) {
      const row = transition(from as never, trigger as never);
      expect(row.to).toBe(to);
      expect(row.ours).toBeUndefined();
    }
  });

  it('refuses anything not in the table (ended is final, cancel_pending cannot be cancelled again)', () => {
    for (const trigger of PLAN_TRIGGERS) expect(() => transition('ended', trigger)).toThrow(InvalidTransition);
    expect(() => transition('cancel_pending', 'cancel')).toThrow(InvalidTransition);
    expect(() => transition('cancel_pending', 'charge_failed')).toThrow(InvalidTransition);
    expect(() => transition(null, 'charge_succeeded')).toThrow(InvalidTransition);
  });

  it('each row names who, when and why, and no two rows share a (from, trigger)', () => {
    const keys = new Set(TRANSITIONS.map((row) => `${row.from}|${row.trigger}`));
    expect(keys.size).toBe(TRANSITIONS.length);
    for (const row of TRANSITIONS) {
      expect(PLAN_STATES).toContain(row.to);
      expect(row.when.length).toBeGreaterThan(0);
      expect(row.why.length).toBeGreaterThan(0);
    }
  });
});
