import type { Network } from '../../services/core/index.js';
import type { OnchainPlanSpec } from '../crds/schemas.js';
import { MANAGED_BY_LABEL, MANAGER, type CustomResource, type TranslationSettings } from './types.js';

/**
 * The stream workers' replica count (docs/kubernetes.md): none without an enabled stream,
 * otherwise ceil(expected events per second / events per worker), at least 1, at most the cap.
 */
export function streamWorkerReplicas(enabledStreams: number, expectedEventsPerSecond: number, eventsPerWorker: number, max: number): number {
  if (enabledStreams === 0) return 0;
  return Math.min(max, Math.max(1, Math.ceil(expectedEventsPerSecond / eventsPerWorker)));
}

export function streamWorkerDeployment(settings: TranslationSettings, network: Network, enabledStreams: number, load: number): Record<string, unknown> {
  const name = `suigw-streams-${network}`;
  const labels = { 'app.kubernetes.io/name': 'suigw', 'app.kubernetes.io/component': 'streams', 'suigw.io/network': network };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: settings.namespace, labels: { ...labels, [MANAGED_BY_LABEL]: MANAGER } },
    spec: {
      replicas: streamWorkerReplicas(enabledStreams, load, settings.eventsPerWorker, settings.maxStreamWorkers),
      selector: { matchLabels: labels },
      template: {
        // The managed-by label on the pods too: the chart's NetworkPolicies let them reach the bundled databases.
        metadata: { labels: { ...labels, [MANAGED_BY_LABEL]: MANAGER } },
        spec: {
          containers: [
            {
              name: 'streams',
              image: settings.image,
              args: ['streams'],
              env: [{ name: 'SUIGW_NETWORKS', value: network }],
              envFrom: [{ secretRef: { name: settings.envSecret } }],
            },
          ],
        },
      },
    },
  };
}

/**
 * Every hour: a pass charges only what is due (renewals fall on the first charge's day, kept in
 * the database), and the same pass carries the daily retries of failed charges, the hourly
 * retries of our own failures and the 7-day reminders (docs/billing.md), which a once-a-month
 * schedule would miss. `billingDay` stays on the resource as what the owner expects to see.
 */
export function billingSchedule(): string {
  return '7 * * * *';
}

export function billingCronJob(settings: TranslationSettings, resource: CustomResource, spec: OnchainPlanSpec): Record<string, unknown> {
  const labels = { 'app.kubernetes.io/name': 'suigw', 'app.kubernetes.io/component': 'billing', 'suigw.io/plan': resource.metadata.name };
  return {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: {
      name: `suigw-billing-${resource.metadata.name}`,
      namespace: resource.metadata.namespace,
      labels: { ...labels, [MANAGED_BY_LABEL]: MANAGER },
      ownerReferences: [{ apiVersion: 'suigw.io/v1alpha1', kind: 'OnchainPlan', name: resource.metadata.name, uid: resource.metadata.uid, controller: true }],
    },
    spec: {
      schedule: billingSchedule(),
      timeZone: 'Etc/UTC',
      suspend: spec.suspend,
      concurrencyPolicy: 'Forbid',
      jobTemplate: {
        spec: {
          backoffLimit: 3,
          template: {
            metadata: { labels: { ...labels, [MANAGED_BY_LABEL]: MANAGER } },
            spec: {
              restartPolicy: 'OnFailure',
              containers: [
                {
                  name: 'billing',
                  image: settings.image,
                  args: ['billing'],
                  env: [
                    { name: 'SUIGW_BILLING_ORGANIZATION', value: spec.organizationId },
                    { name: 'SUIGW_BILLING_NETWORK', value: spec.network },
                    { name: 'SUIGW_BILLING_TIER', value: spec.tier },
                    { name: 'SUIGW_BILLING_DAY', value: String(spec.billingDay) },
                  ],
                  envFrom: [{ secretRef: { name: settings.envSecret } }],
                },
              ],
            },
          },
        },
      },
    },
  };
}
