import { createHash } from 'node:crypto';
import type { Network } from '../../services/core/index.js';
import type { OnchainPlanSpec } from '../crds/schemas.js';
import { MANAGED_BY_LABEL, MANAGER, type CustomResource, type OwnedWorkload, type TranslationSettings, type WorkloadRef } from './types.js';

/**
 * The image's user (Dockerfile `USER 10001:10001`), numeric so `runAsNonRoot` can verify it: the
 * chart's `podSecurityContext` runs its own pods as the same uid.
 */
export const IMAGE_UID = 10001;

/**
 * The operator's pods are hardened as the chart's (values.yaml `podSecurityContext`,
 * `securityContext`), which passes the "restricted" Pod Security Standard: a namespace that
 * enforces it admits them. The root file system is read-only; /tmp is an emptyDir, as in the
 * chart's pods.
 */
function hardenedPod(container: Record<string, unknown>): Record<string, unknown> {
  return {
    securityContext: { runAsNonRoot: true, runAsUser: IMAGE_UID, runAsGroup: IMAGE_UID, fsGroup: IMAGE_UID, seccompProfile: { type: 'RuntimeDefault' } },
    containers: [
      {
        ...container,
        securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
        volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }],
      },
    ],
    volumes: [{ name: 'tmp', emptyDir: {} }],
  };
}

/**
 * A stream worker's listeners (`suigw streams`: Warp delivery, `/health` and `/health/live` on
 * one, `/metrics` on the other), set in its environment so the probes and the process agree
 * whatever the Secret holds: the chart's ports for the streams role, on every interface (HOST
 * defaults to loopback, which the kubelet's probes cannot reach). The chart's NetworkPolicy
 * `<release>-stream-workers` admits only Prometheus, to the metrics port.
 */
export const STREAM_WORKER_PORT = 8090;
export const STREAM_WORKER_METRICS_PORT = 9464;

/**
 * The environment the chart's roles read, for the operator's pods too: the ConfigMap of the
 * chart's `config.env` (upstream URLs, plans, webhook and billing settings; without them a stream
 * worker ingests nothing and a billing pass knows no network), then the Secret, whose keys win.
 * Each container's own `env` wins over both.
 */
function environmentFrom(settings: TranslationSettings): Record<string, unknown>[] {
  const secret = { secretRef: { name: settings.envSecret } };
  return settings.envConfigMap ? [{ configMapRef: { name: settings.envConfigMap } }, secret] : [secret];
}

/**
 * The stream workers' replica count (docs/kubernetes.md): none without an enabled stream,
 * otherwise ceil(expected events per second / events per worker), at least 1, at most the cap.
 */
export function streamWorkerReplicas(enabledStreams: number, expectedEventsPerSecond: number, eventsPerWorker: number, max: number): number {
  if (enabledStreams === 0) return 0;
  return Math.min(max, Math.max(1, Math.ceil(expectedEventsPerSecond / eventsPerWorker)));
}

const STREAM_WORKER_PREFIX = 'suigw-streams-';

export function streamWorkerName(network: Network): string {
  return `${STREAM_WORKER_PREFIX}${network}`;
}

export function streamWorkerDeployment(settings: TranslationSettings, network: Network, enabledStreams: number, load: number): Record<string, unknown> {
  const name = streamWorkerName(network);
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
        spec: hardenedPod({
          name: 'streams',
          image: settings.image,
          args: ['streams'],
          env: [
            { name: 'SUIGW_NETWORKS', value: network },
            { name: 'HOST', value: '0.0.0.0' },
            { name: 'PORT', value: String(STREAM_WORKER_PORT) },
            { name: 'SUIGW_METRICS_PORT', value: String(STREAM_WORKER_METRICS_PORT) },
          ],
          envFrom: environmentFrom(settings),
          ports: [
            { name: 'http', containerPort: STREAM_WORKER_PORT },
            { name: 'metrics', containerPort: STREAM_WORKER_METRICS_PORT },
          ],
          // As the chart's streams role: readiness on /health (503 while PostgreSQL is unreachable);
          // liveness on /health/live, the process only, since restarting every worker while the
          // database is down brings nothing back, but a worker that stopped answering is restarted.
          readinessProbe: { httpGet: { path: '/health', port: 'http' }, periodSeconds: 5 },
          livenessProbe: { httpGet: { path: '/health/live', port: 'http' }, periodSeconds: 10, failureThreshold: 6 },
          resources: settings.streamsResources,
        }),
      },
    },
  };
}

/**
 * The stream-worker Deployments in the operator's namespace that no served network wants: those
 * of a network dropped from the operator's `SUIGW_NETWORKS`, whose workers would otherwise run on.
 * No owner collects them, so the operator deletes them, from the informer's cache on every rebuild
 * (so also those left while no operator ran). Only its own: its label, the streams component and
 * the name pattern, in its namespace; a Deployment someone else made under a `suigw-streams-` name
 * is left alone.
 */
export function staleStreamWorkerDeployments(settings: TranslationSettings, deployments: readonly OwnedWorkload[]): WorkloadRef[] {
  const wanted = new Set(settings.hosts.map(({ network }) => streamWorkerName(network)));
  const streamWorkers = deployments.filter((deployment) => deployment.metadata.name.startsWith(STREAM_WORKER_PREFIX));
  return unwanted(settings, streamWorkers, { apiVersion: 'apps/v1', kind: 'Deployment', component: 'streams' }, wanted);
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

/**
 * How long one billing Job may run, its restarts included (`activeDeadlineSeconds`: then its pod
 * is stopped and the Job failed). A pass is one organization's few plans, a handful of node calls
 * and emails: seconds when they answer. Each node call has a 30 s deadline and each SMTP phase
 * 15-30 s (services/cli/billing-parts.ts, services/billing/mail/smtp-mailer.ts), so a pass facing
 * a silent node or mail server ends on its own within minutes; this bounds whatever else could
 * hang (a pass that never ends keeps its Job active, so `concurrencyPolicy: Forbid` skips every
 * later run, and keeps the deployment's charging lock, so every other organization's pass does
 * nothing, exit 4). A pass stopped mid-charge is recovered by the next (docs/billing.md,
 * "whatever crashes").
 */
const BILLING_PASS_DEADLINE_SECONDS = 900;

/**
 * How late a missed run may still start (`startingDeadlineSeconds`: the controller was down, or
 * Forbid held it back while the previous pass ran); without it, however late. Half the hourly
 * period: with the pass's own deadline a late pass ends by :52, before the next one's :07, so it
 * never makes that one skip.
 */
const BILLING_START_DEADLINE_SECONDS = 1800;

/** The labels that name a billing CronJob's OnchainPlan (the CronJob lives in the operator's namespace, not the plan's). */
const PLAN_NAMESPACE_LABEL = 'suigw.io/plan-namespace';
const PLAN_NAME_LABEL = 'suigw.io/plan';

/** Kubernetes refuses a CronJob name over 52 characters (its Jobs' names add 11). */
export const CRONJOB_NAME_MAX = 52;
const NAME_HASH_LENGTH = 10;

/**
 * `suigw-billing-<namespace>-<plan>-<hash of namespace/plan>`, cut to 52 characters before the
 * hash. The hash is always there: plans of every namespace share the operator's, and
 * `team-a`/`b` and `team`/`a-b` would otherwise both be `suigw-billing-team-a-b`.
 */
export function billingCronJobName(namespace: string, name: string): string {
  const hash = createHash('sha256').update(`${namespace}/${name}`).digest('hex').slice(0, NAME_HASH_LENGTH);
  // Dots are legal in a plan's name but not in the host name its Job's pods would get.
  const readable = `suigw-billing-${namespace}-${name}`.replace(/[^a-z0-9-]/g, '-').slice(0, CRONJOB_NAME_MAX - NAME_HASH_LENGTH - 1).replace(/-+$/, '');
  return `${readable}-${hash}`;
}

/**
 * In the operator's namespace, whatever the plan's: there are the Secret (`envSecret`), the
 * database's Service and the NetworkPolicies that admit the operator's pods (the Helm chart's
 * release namespace). No owner reference (it cannot cross namespaces): the operator deletes the
 * CronJob of a plan that is gone (`staleBillingCronJobs`).
 */
export function billingCronJob(settings: TranslationSettings, resource: CustomResource, spec: OnchainPlanSpec): Record<string, unknown> {
  const labels = {
    'app.kubernetes.io/name': 'suigw',
    'app.kubernetes.io/component': 'billing',
    [PLAN_NAMESPACE_LABEL]: resource.metadata.namespace,
    [PLAN_NAME_LABEL]: resource.metadata.name,
  };
  return {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: {
      name: billingCronJobName(resource.metadata.namespace, resource.metadata.name),
      namespace: settings.namespace,
      labels: { ...labels, [MANAGED_BY_LABEL]: MANAGER },
    },
    spec: {
      schedule: billingSchedule(),
      timeZone: 'Etc/UTC',
      suspend: spec.suspend,
      concurrencyPolicy: 'Forbid',
      startingDeadlineSeconds: BILLING_START_DEADLINE_SECONDS,
      jobTemplate: {
        spec: {
          backoffLimit: 3,
          activeDeadlineSeconds: BILLING_PASS_DEADLINE_SECONDS,
          template: {
            metadata: { labels: { ...labels, [MANAGED_BY_LABEL]: MANAGER } },
            spec: {
              restartPolicy: 'OnFailure',
              ...hardenedPod({
                name: 'billing',
                image: settings.image,
                args: ['billing'],
                // A pass reads the organization's plans (network, tier, renewal day) from the
                // database (services/billing/billing-pass.ts): the organization is all it is told.
                env: [{ name: 'SUIGW_BILLING_ORGANIZATION', value: spec.organizationId }],
                envFrom: environmentFrom(settings),
                resources: settings.billingResources,
              }),
            },
          },
        },
      },
    },
  };
}

/**
 * The billing CronJobs in the operator's namespace that no OnchainPlan wants: their plan is gone
 * or being deleted, or they carry a name an earlier operator gave (`suigw-billing-<plan>`). An
 * existing plan keeps its CronJob while its spec is refused, as the owner reference once kept it.
 * From the informer's cache on every rebuild, so a CronJob whose plan went while no operator ran
 * is deleted at the next start.
 */
export function staleBillingCronJobs(settings: TranslationSettings, plans: readonly CustomResource[], cronJobs: readonly OwnedWorkload[]): WorkloadRef[] {
  const wanted = new Set(plans.filter((plan) => plan.metadata.deletionTimestamp === undefined).map((plan) => billingCronJobName(plan.metadata.namespace, plan.metadata.name)));
  return unwanted(settings, cronJobs, { apiVersion: 'batch/v1', kind: 'CronJob', component: 'billing' }, wanted);
}

/**
 * The workloads of one kind the operator made (its managed-by label, the component, its
 * namespace) whose names are not `wanted`, as references to delete, in name order.
 */
function unwanted(
  settings: TranslationSettings, workloads: readonly OwnedWorkload[], kind: { apiVersion: string; kind: string; component: string }, wanted: ReadonlySet<string>,
): WorkloadRef[] {
  return workloads
    .filter(({ metadata }) => metadata.namespace === settings.namespace && !wanted.has(metadata.name))
    .filter(({ metadata }) => metadata.labels?.['app.kubernetes.io/component'] === kind.component && metadata.labels[MANAGED_BY_LABEL] === MANAGER)
    .map(({ metadata }) => ({ apiVersion: kind.apiVersion, kind: kind.kind, namespace: metadata.namespace, name: metadata.name }))
    .sort((a, b) => a.name.localeCompare(b.name));
}
