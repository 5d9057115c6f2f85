import { describe, expect, it } from 'vitest';
import { installPlans, parsePlansFile, PLAN_IDS, PLANS, PlansFileError, planOf, plansInForce } from './plan-table.js';
import { TIERS, UnknownTierError } from './tiers.js';

describe('plans', () => {
  it('carries the spec\'s proofs per minute and the wallet organization\'s one project', () => {
    expect([PLANS.team, PLANS.growth, PLANS.professional, PLANS.business, PLANS.enterprise].map((p) => p.proofsPerMinute)).toEqual([20, 60, 120, 300, null]);
    expect(planOf({ tier: 'wallet', subscription: null }).projects).toBe(1);
  });

  it('an organization\'s plan: its subscription while in force, else its tier', () => {
    expect(planOf({ tier: 'team', subscription: null }).id).toBe('team');
    expect(planOf({ tier: 'free', subscription: { plan: 'growth', status: 'past_due', periodEnd: null } }).id).toBe('growth');
    expect(planOf({ tier: 'team', subscription: { plan: 'business', status: 'ended', periodEnd: null } }).id).toBe('team');
  });

  it('an unknown tier or subscription plan is an error, never silently the free plan', () => {
    expect(() => planOf({ tier: 'platinum', subscription: null })).toThrow(new UnknownTierError('platinum'));
    expect(() => planOf({ tier: 'team', subscription: { plan: 'gold', status: 'active' } })).toThrow(UnknownTierError);
    expect(() => planOf({ tier: 'platinum', subscription: null })).toThrow('unknown organization tier \'platinum\' (known: free, team, growth, professional, business, enterprise, wallet)');
    expect(PLAN_IDS).toEqual(TIERS);
  });

});

describe('a deployment\'s plans file', () => {
  const numbers = Object.fromEntries(Object.entries(PLANS).map(([id, { id: _id, ...rest }]) => [id, rest]));

  it('parses a complete file and puts it in force for planOf', () => {
    const table = parsePlansFile('p.json', JSON.stringify({ version: 1, plans: { ...numbers, team: { ...numbers['team'], orgRps: 7, projects: 9 } } }));
    expect(table.team).toEqual({ ...PLANS.team, orgRps: 7, projects: 9 });
    installPlans(table);
    try {
      expect(planOf({ tier: 'team', subscription: null }).orgRps).toBe(7);
      expect(planOf({ tier: 'team', subscription: null }).projects).toBe(9);
      expect(plansInForce()).toBe(table);
    } finally {
      installPlans(PLANS);
    }
    expect(planOf({ tier: 'team', subscription: null })).toBe(PLANS.team);
  });

  it('refuses a file with a plan or a number missing, listing every problem', () => {
    const { webhooks: _webhooks, ...teamWithoutWebhooks } = numbers['team']!;
    const text = JSON.stringify({ version: 1, plans: { ...numbers, team: teamWithoutWebhooks, wallet: undefined } });
    expect(() => parsePlansFile('p.json', text)).toThrow(PlansFileError);
    try {
      parsePlansFile('p.json', text);
    } catch (error) {
      expect((error as PlansFileError).issues.map((issue) => issue.split(':')[0])).toEqual(['plans.team.webhooks', 'plans.wallet']);
    }
  });
});
