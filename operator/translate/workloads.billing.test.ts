import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { CustomResource, TranslationInput } from './types.js';
import { billingCronJob, billingCronJobName, CRONJOB_NAME_MAX } from './workloads.js';

/** The billing CronJobs of every namespace's plans share the operator's namespace: their names. */
describe('billingCronJobName', () => {
  it('names the namespace and the plan, with a hash that tells apart what the dashes would not', () => {
    expect(billingCronJobName('team-a', 'acme')).toBe('suigw-billing-team-a-acme-9201d5e7e0');
    expect(billingCronJobName('team-b', 'acme')).toBe('suigw-billing-team-b-acme-904efe3fb4');
    expect([billingCronJobName('team-a', 'b'), billingCronJobName('team', 'a-b')]).toEqual(['suigw-billing-team-a-b-4f27096136', 'suigw-billing-team-a-b-b20d20d57c']);
  });

  it("stays within Kubernetes' 52 characters: a name of exactly 52 is whole, one more character is cut before the hash", () => {
    expect(CRONJOB_NAME_MAX).toBe(52);
    // `suigw-billing-team-a-` (21) + 20 characters + `-` + 10 of hash = 52.
    const whole = billingCronJobName('team-a', 'p'.repeat(20));
    expect([whole, whole.length]).toEqual([`suigw-billing-team-a-${'p'.repeat(20)}-${whole.slice(-10)}`, 52]);
    const cut = billingCronJobName('team-a', 'p'.repeat(21));
    expect([cut, cut.length]).toEqual([`suigw-billing-team-a-${'p'.repeat(20)}-${cut.slice(-10)}`, 52]);
    expect(cut).not.toBe(whole);
    const longest = billingCronJobName('n'.repeat(63), 'p'.repeat(253));
    expect(longest.length).toBe(52);
  });

  it('leaves no dot (a pod host name part) and no dash before the hash', () => {
    expect(billingCronJobName('team-a', 'acme.growth')).toMatch(/^suigw-billing-team-a-acme-growth-[0-9a-f]{10}$/);
    // The cut falls on a dash: `suigw-billing-team-a-` + 19 characters + `-` would leave `--`.
    expect(billingCronJobName('team-a', `${'p'.repeat(19)}-x`)).toMatch(new RegExp(`^suigw-billing-team-a-${'p'.repeat(19)}-[0-9a-f]{10}$`));
  });
});

describe('billingCronJob', () => {
  const { settings } = parse(readFileSync(join(import.meta.dirname, '..', 'testdata', 'billing.in.yaml'), 'utf8')) as TranslationInput;
  const plan = { kind: 'OnchainPlan', metadata: { name: 'acme', namespace: 'team-a', uid: 'p1', generation: 1 } } as CustomResource;

  it("stops a hung pass after 15 minutes and starts a missed one at most 30 minutes late, so a late pass ends before the next hour's", () => {
    const cronJob = billingCronJob(settings, plan, { organizationId: 'org_a', network: 'mainnet', tier: 'growth', billingDay: 1, suspend: false }) as {
      spec: { schedule: string; concurrencyPolicy: string; startingDeadlineSeconds: number; jobTemplate: { spec: { activeDeadlineSeconds: number } } };
    };
    const { schedule, concurrencyPolicy, startingDeadlineSeconds, jobTemplate } = cronJob.spec;
    // Hourly at :07 with Forbid: a Job started at :37 at the latest is stopped by :52.
    expect({ schedule, concurrencyPolicy, startingDeadlineSeconds, activeDeadlineSeconds: jobTemplate.spec.activeDeadlineSeconds })
      .toEqual({ schedule: '7 * * * *', concurrencyPolicy: 'Forbid', startingDeadlineSeconds: 1800, activeDeadlineSeconds: 900 });
  });
});
