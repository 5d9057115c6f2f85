import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { OwnedWorkload, TranslationSettings } from '../../operator/translate/types.js';
import { billingSchedule, staleBillingCronJobs } from '../../operator/translate/workloads.js';
import { loadConfig } from '../../services/core/index.js';
import { CHART_DIR, helm } from '../support/helm.js';
import { restrictedViolations, type PodSpec } from '../support/pod-security-restricted.js';
import { schemaErrors, type KubeObject } from './kubernetes-schemas.js';

/**
 * The chart's deployment-wide billing CronJob: `suigw billing` over every organization, every
 * hour. The per-plan CronJobs the operator makes exist only for OnchainPlans someone applied; a
 * plan a customer activated through the billing API has none, and without this one its first
 * charge was its last: never renewed, retried, reminded or ended.
 */
async function render(args: string[] = []): Promise<KubeObject[]> {
  const { stdout } = await helm(['template', 'suigw', CHART_DIR, '--namespace', 'suigw', ...args]);
  return parseAllDocuments(stdout).map((document) => document.toJS() as KubeObject | null).filter((object): object is KubeObject => object !== null);
}

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}
interface CronJobSpec {
  schedule: string;
  timeZone: string;
  concurrencyPolicy: string;
  startingDeadlineSeconds: number;
  jobTemplate: {
    spec: {
      activeDeadlineSeconds: number;
      template: {
        metadata: { labels: Record<string, string>; annotations?: Record<string, string> };
        spec: PodSpec & { restartPolicy: string; containers: { image: string; args: string[]; env: EnvVar[]; envFrom: unknown[]; resources: unknown }[] };
      };
    };
  };
}

const billingCronJobs = (objects: KubeObject[]) => objects.filter((o) => o.kind === 'CronJob');

describe("the chart's billing CronJob (every organization)", () => {
  it('runs `suigw billing` hourly at :37 without SUIGW_BILLING_ORGANIZATION, as the roles run, in a hardened pod', async () => {
    const objects = await render();
    const cronJobs = billingCronJobs(objects);
    expect(cronJobs.map((o) => o.metadata.name)).toEqual(['suigw-billing']);
    const cronJob = cronJobs[0]!;
    expect(schemaErrors(cronJob)).toBe('');
    const spec = cronJob.spec as CronJobSpec;
    expect([spec.schedule, spec.timeZone, spec.concurrencyPolicy, spec.startingDeadlineSeconds, spec.jobTemplate.spec.activeDeadlineSeconds]).toEqual([
      '37 * * * *', 'Etc/UTC', 'Forbid', 1800, 900,
    ]);
    // Apart from the per-plan CronJobs' minute: they and this one take the same charging lock.
    expect(spec.schedule.split(' ')[0]).not.toBe(billingSchedule().split(' ')[0]);

    const pod = spec.jobTemplate.spec.template;
    expect(pod.spec.restartPolicy).toBe('OnFailure');
    expect(restrictedViolations(pod.spec, pod.metadata.annotations)).toEqual([]);
    expect(pod.spec.containers).toHaveLength(1);
    const container = pod.spec.containers[0]!;
    expect(container.args).toEqual(['billing']);
    expect(container.env.map((v) => v.name)).not.toContain('SUIGW_BILLING_ORGANIZATION');

    // The same image, environment and Secret as the gateway role.
    const gateway = (objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'suigw-gateway')!.spec as CronJobSpec['jobTemplate']['spec']).template.spec.containers[0]!;
    expect(container.image).toBe(gateway.image);
    expect(container.envFrom).toEqual(gateway.envFrom);
    const secretEnv = (env: EnvVar[]) => env.filter((v) => v.valueFrom?.secretKeyRef);
    expect(secretEnv(container.env)).toEqual(secretEnv(gateway.env));
    // A pass over every organization: the organization is what the pass is not told.
    const secret: Record<string, string> = { SUIGW_SECRET: 'x'.repeat(48), DATABASE_URL: 'postgres://suigw@db:5432/suigw', REDIS_URL: 'redis://redis:6379' };
    const env = Object.fromEntries(container.env.map((v) => [v.name, v.value ?? secret[v.valueFrom!.secretKeyRef!.key]!]));
    expect(loadConfig(env).billing.organizationId).toBeUndefined();
  });

  it('is admitted to the bundled PostgreSQL and Redis by their NetworkPolicies, and left alone by the operator', async () => {
    const objects = await render();
    const labels = (billingCronJobs(objects)[0]!.spec as CronJobSpec).jobTemplate.spec.template.metadata.labels;
    type Peer = { podSelector?: { matchLabels: Record<string, string> }; namespaceSelector?: unknown };
    type Policy = { podSelector: { matchLabels: Record<string, string> }; ingress: { from?: Peer[]; ports?: { port: number | string }[] }[] };
    const matches = (selector: Record<string, string>, target: Record<string, string>) => Object.entries(selector).every(([key, value]) => target[key] === value);
    const policies = objects.filter((o) => o.kind === 'NetworkPolicy').map((o) => o.spec as Policy);
    const reaches = (kind: string, name: string, port: number) => {
      const target = (objects.find((o) => o.kind === kind && o.metadata.name === name)!.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;
      const selecting = policies.filter((p) => matches(p.podSelector.matchLabels, target));
      // The CronJob's pods are in the release's namespace, as the policies: a podSelector-only peer admits them.
      const admits = (peer: Peer) => peer.podSelector !== undefined && peer.namespaceSelector === undefined && matches(peer.podSelector.matchLabels, labels);
      return selecting.length > 0 && selecting.some((p) => p.ingress.some((rule) => (rule.ports ?? [{ port }]).some((p) => p.port === port) && (rule.from ?? [{}]).some(admits)));
    };
    expect([reaches('StatefulSet', 'suigw-postgresql', 5432), reaches('Deployment', 'suigw-redis', 6379)]).toEqual([true, true]);
    // No policy meant for pods that serve something selects it (it serves nothing).
    expect(policies.filter((p) => matches(p.podSelector.matchLabels, labels))).toEqual([]);

    // The operator deletes the billing CronJobs of its own that no OnchainPlan wants: never the chart's.
    const cronJob = billingCronJobs(objects)[0]! as unknown as OwnedWorkload;
    const settings = { namespace: 'suigw' } as TranslationSettings;
    expect(staleBillingCronJobs(settings, [], [{ metadata: { ...cronJob.metadata, namespace: 'suigw' } }])).toEqual([]);
  });

  it('follows billing.cronJob: disabled renders none, the schedule is the value', async () => {
    expect(billingCronJobs(await render(['--set', 'billing.cronJob.enabled=false']))).toEqual([]);
    const [cronJob] = billingCronJobs(await render(['--set', 'billing.cronJob.schedule=*/20 * * * *']));
    expect((cronJob!.spec as CronJobSpec).schedule).toBe('*/20 * * * *');
  });
});
