import { describe, expect, it } from 'vitest';
import { Metrics } from '../core/index.js';
import { CreditSeries } from './credit-series.js';

describe('CreditSeries', () => {
  it('resolves each organization\'s (and plan\'s) series once and records on the instruments /metrics reads', async () => {
    const metrics = new Metrics({ defaultMetrics: false });
    const credits = new CreditSeries(metrics);
    expect(credits.consumed('org_a', 'pro')).toBe(credits.consumed('org_a', 'pro'));
    expect(credits.consumed('org_a', 'free')).not.toBe(credits.consumed('org_a', 'pro'));
    expect(credits.remaining('org_a')).toBe(credits.remaining('org_a'));
    credits.consumed('org_a', 'pro').inc(3);
    credits.consumed('org_a', 'pro').inc(2);
    credits.consumed('org_b', 'pro').inc(1);
    credits.remaining('org_a').set(10);
    credits.remaining('org_a').set(7);
    const text = (await metrics.exposition()).body;
    expect(text).toContain('suigw_credits_consumed_total{organization="org_a",plan="pro"} 5');
    expect(text).toContain('suigw_credits_consumed_total{organization="org_a",plan="free"} 0');
    expect(text).toContain('suigw_credits_consumed_total{organization="org_b",plan="pro"} 1');
    expect(text).toContain('suigw_credits_remaining{organization="org_a"} 7');
  });
});
