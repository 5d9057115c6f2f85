import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Document, parse, parseAllDocuments } from 'yaml';
import { operatorSettings } from '../../operator/settings.js';
import type { CustomResource } from '../../operator/translate/types.js';
import { billingCronJob, streamWorkerDeployment } from '../../operator/translate/workloads.js';
import { roundTripLosses } from '../../operator/xds/envoy-codec.js';
import { loadConfig } from '../../services/core/index.js';
import { CHART_DIR, helm } from '../support/helm.js';
import { POD_HEAP } from '../support/pod-heap.js';
import { restrictedViolations, type PodSpec } from '../support/pod-security-restricted.js';
import { schemaErrors, type KubeObject } from './kubernetes-schemas.js';

/**
 * charts/suigw through the real helm binary: lint, render, golden files
 * (`UPDATE_GOLDEN=1` rewrites test/helm/testdata/<case>.out.yaml), Kubernetes' schemas, and
 * the properties the chart promises (only Envoy reaches the roles, RBAC limited to what the
 * operator touches, probes and resources everywhere).
 */
const TESTDATA = new URL('./testdata/', import.meta.url);
const UPDATE = process.env.UPDATE_GOLDEN === '1';
const CASES: Record<string, string[]> = {
  default: [],
  production: ['-f', 'test/helm/testdata/production.values.yaml', '--api-versions', 'monitoring.coreos.com/v1/ServiceMonitor', '--api-versions', 'monitoring.coreos.com/v1/PodMonitor', '--api-versions', 'monitoring.coreos.com/v1/PrometheusRule'],
};
const ROLES = ['authz', 'gateway', 'grpc', 'ratelimit', 'streams'];

/** Generated secrets differ on every render: the golden shows their place, not their value. */
function maskGenerated(objects: KubeObject[]): KubeObject[] {
  return objects.map((object) => {
    if (object.kind !== 'Secret') return object;
    const data = { ...(object.stringData as Record<string, string>) };
    for (const key of ['SUIGW_SECRET', 'POSTGRES_PASSWORD']) if (data[key]) data[key] = `<generated ${data[key].length} characters>`;
    if (data.DATABASE_URL) data.DATABASE_URL = data.DATABASE_URL.replace(/:\/\/suigw:[^@]+@/, '://suigw:<POSTGRES_PASSWORD>@');
    return { ...object, stringData: data };
  });
}

async function render(name: string): Promise<{ text: string; objects: KubeObject[] }> {
  const { stdout } = await helm(['template', 'suigw', CHART_DIR, '--namespace', 'suigw', '--include-crds', ...CASES[name]!]);
  const objects = parseAllDocuments(stdout)
    .map((document) => document.toJS() as KubeObject | null)
    .filter((object): object is KubeObject => object !== null);
  return { text: stdout, objects };
}

const find = (objects: KubeObject[], kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name);

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { fieldRef?: { fieldPath: string }; secretKeyRef?: { name: string; key: string } };
}
interface OperatorContainer {
  args: string[];
  env: EnvVar[];
}

/** The environment the kubelet gives a container in `namespace`: downward API fields resolved, the Secret's keys stood in for. */
function podEnv(env: EnvVar[], namespace: string): Record<string, string> {
  const secret: Record<string, string> = { SUIGW_SECRET: 'x'.repeat(48), DATABASE_URL: 'postgres://suigw@db:5432/suigw', REDIS_URL: 'redis://redis:6379' };
  const fields: Record<string, string> = { 'metadata.namespace': namespace, 'metadata.name': 'suigw-operator-0' };
  return Object.fromEntries(env.map((v) => [v.name, v.value ?? (v.valueFrom?.fieldRef ? fields[v.valueFrom.fieldRef.fieldPath]! : secret[v.valueFrom!.secretKeyRef!.key]!)]));
}

describe('charts/suigw with the real helm binary', () => {
  const rendered: Record<string, KubeObject[]> = {};

  beforeAll(async () => {
    for (const name of Object.keys(CASES)) rendered[name] = (await render(name)).objects;
  }, 120_000);

  it('passes helm lint --strict with the defaults and with the production values', async () => {
    const defaults = await helm(['lint', '--strict', CHART_DIR]);
    expect(defaults.stdout).toContain('1 chart(s) linted, 0 chart(s) failed');
    const production = await helm(['lint', '--strict', CHART_DIR, '-f', 'test/helm/testdata/production.values.yaml']);
    expect(production.stdout).toContain('0 chart(s) failed');
  });

  for (const name of Object.keys(CASES)) {
    it(`${name}: the rendered objects equal ${name}.out.yaml`, () => {
      const actual = maskGenerated(rendered[name]!)
        .map((object) => `---\n${JSON.stringify(object) === '{}' ? '' : toYaml(object)}`)
        .join('');
      const file = new URL(`${name}.out.yaml`, TESTDATA);
      if (UPDATE) fs.writeFileSync(file, actual);
      expect(actual).toBe(fs.readFileSync(file, 'utf8'));
    });

    it(`${name}: every rendered object is valid against Kubernetes' schemas`, () => {
      expect(rendered[name]!.length).toBeGreaterThan(20);
      expect(rendered[name]!.map(schemaErrors).filter(Boolean)).toEqual([]);
    });
  }

  it('the schema check can fail: a wrong type is reported', () => {
    const deployment = structuredClone(find(rendered.default!, 'Deployment', 'suigw-gateway')!);
    (deployment.spec as { replicas: unknown }).replicas = 'two';
    expect(schemaErrors(deployment)).toContain('replicas must be integer');
  });

  it('installs as is: a generated secret, bundled PostgreSQL and Redis, the migrations hook', () => {
    const objects = rendered.default!;
    const secret = find(objects, 'Secret', 'suigw-config')!.stringData as Record<string, string>;
    expect(secret.SUIGW_SECRET).toMatch(/^[A-Za-z0-9]{48}$/);
    expect(secret.DATABASE_URL).toBe(`postgres://suigw:${secret.POSTGRES_PASSWORD}@suigw-postgresql:5432/suigw`);
    expect(secret.REDIS_URL).toBe('redis://suigw-redis:6379');
    expect(find(objects, 'StatefulSet', 'suigw-postgresql')).toBeDefined();
    const job = find(objects, 'Job', 'suigw-migrate')!;
    expect(job.metadata.annotations!['helm.sh/hook']).toBe('post-install,pre-upgrade');
    expect(JSON.stringify(job.spec)).toContain('"args":["migrate"]');
  });

  it('refuses to render without a database when the bundled one is off', async () => {
    await expect(helm(['template', 'suigw', CHART_DIR, '--set', 'postgresql.enabled=false'])).rejects.toThrow(
      'secret.databaseUrl (or secret.existingSecret) is required when postgresql.enabled is false',
    );
  });

  it('gives every container resources and readiness and liveness probes, and every multi-replica Deployment a PDB', () => {
    for (const name of Object.keys(CASES)) {
      const objects = rendered[name]!;
      const workloads = objects.filter((o) => o.kind === 'Deployment' || o.kind === 'StatefulSet');
      for (const workload of workloads) {
        const spec = workload.spec as { replicas: number; template: { spec: { containers: Record<string, unknown>[] } } };
        for (const container of spec.template.spec.containers) {
          expect([workload.metadata.name, Object.keys(container)]).toEqual([
            workload.metadata.name,
            expect.arrayContaining(['resources', 'readinessProbe', 'livenessProbe']),
          ]);
        }
        if (spec.replicas > 1) expect(find(objects, 'PodDisruptionBudget', workload.metadata.name)).toBeDefined();
      }
      for (const role of ROLES) expect(find(objects, 'Deployment', `suigw-${role}`)).toBeDefined();
    }
  });

  it('renders only pods a namespace enforcing the restricted Pod Security Standard admits', () => {
    for (const name of Object.keys(CASES)) {
      type Template = { metadata?: { annotations?: Record<string, string> }; spec: PodSpec };
      const pods = rendered[name]!
        .filter((o) => ['Deployment', 'StatefulSet', 'Job', 'CronJob'].includes(o.kind))
        .map((o) => [o.metadata.name, o.kind === 'CronJob' ? (o.spec as { jobTemplate: { spec: { template: Template } } }).jobTemplate.spec.template : (o.spec as { template: Template }).template] as const);
      expect(pods.length).toBeGreaterThan(0);
      expect([name, pods.map(([pod, template]) => [pod, restrictedViolations(template.spec, template.metadata?.annotations)])]).toEqual([name, pods.map(([pod]) => [pod, []])]);
    }
  });

  it("gives authz and ratelimit the memory limit whose heap the benchmark runs them with", () => {
    // A pod's limit sizes Node's heap (test/support/pod-heap.ts): another limit, another heap to measure.
    const deployments = ['authz', 'ratelimit'].map((role) => find(rendered['default']!, 'Deployment', `suigw-${role}`)!);
    const limits = deployments.map((deployment) => (deployment.spec as { template: { spec: { containers: { resources: { limits: { memory: string } } }[] } } }).template.spec.containers[0]!.resources.limits.memory);
    expect(limits).toEqual([POD_HEAP.memoryLimit, POD_HEAP.memoryLimit]);
  });

  it('lets only Envoy reach the roles (and Prometheus their metrics port), and only Envoy reach xDS', () => {
    const objects = rendered.default!;
    const policy = find(objects, 'NetworkPolicy', 'suigw-behind-envoy')!.spec as {
      podSelector: { matchLabels: Record<string, string> };
      ingress: { from: Record<string, unknown>[]; ports?: { port: string }[] }[];
    };
    expect(policy.ingress).toEqual([
      { from: [{ podSelector: { matchLabels: { 'app.kubernetes.io/name': 'suigw', 'app.kubernetes.io/instance': 'suigw', 'app.kubernetes.io/component': 'envoy' } } }] },
      { from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }], ports: [{ port: 'metrics' }] },
    ]);
    for (const role of ROLES) {
      const labels = (find(objects, 'Deployment', `suigw-${role}`)!.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;
      expect(labels).toMatchObject(policy.podSelector.matchLabels);
    }
    const operator = find(objects, 'NetworkPolicy', 'suigw-operator')!.spec as { ingress: { ports: { port: string }[] }[] };
    expect(operator.ingress[0]!.ports).toEqual([{ port: 'xds' }]);
  });

  it("gives every role behind Envoy SUIGW_TRUST_PROXY = 1 + the hops Envoy trusts (its xff_num_trusted_hops, the operator's --trusted-proxy-hops): the visitor Envoy appended to X-Forwarded-For", () => {
    for (const [name, hops] of [['default', 0], ['production', 1]] as const) {
      const objects = rendered[name]!;
      const operator = (find(objects, 'Deployment', 'suigw-operator')!.spec as { template: { spec: { containers: OperatorContainer[] } } }).template.spec.containers[0]!;
      expect(Number(operator.args[operator.args.indexOf('--trusted-proxy-hops') + 1])).toBe(hops);
      for (const role of ROLES) {
        const container = (find(objects, 'Deployment', `suigw-${role}`)!.spec as { template: { spec: { containers: OperatorContainer[] } } }).template.spec.containers[0]!;
        expect(loadConfig(podEnv(container.env, 'suigw')).trustProxy).toBe(hops + 1);
      }
    }
  });

  it("lifts the gRPC role's per-IP connection cap, which behind Envoy would count Envoy's pool (every client shares Envoy's address)", () => {
    for (const name of Object.keys(CASES)) {
      const container = (find(rendered[name]!, 'Deployment', 'suigw-grpc')!.spec as { template: { spec: { containers: OperatorContainer[] } } }).template.spec.containers[0]!;
      // The most SUIGW_GRPC_MAX_CONNECTIONS_PER_IP takes: one more is refused.
      expect(loadConfig(podEnv(container.env, 'suigw')).grpc.maxConnectionsPerIp).toBe(1_000_000);
      expect(() => loadConfig({ SUIGW_GRPC_MAX_CONNECTIONS_PER_IP: '1000001' })).toThrow('SUIGW_GRPC_MAX_CONNECTIONS_PER_IP');
    }
  });

  it("limits the operator's RBAC to its resources, workloads, Secrets, Leases and read-only EndpointSlices: cluster-wide what lives in the teams' namespaces (resources, key Secrets), the rest in its own", () => {
    // Which requests these rules must grant: test/helm/chart.operator-rbac.test.ts, from the operator's own.
    const objects = rendered.default!;
    const summary = (kind: string, name: string) =>
      (find(objects, kind, name)!.rules as { apiGroups: string[]; resources: string[]; verbs: string[] }[]).map((rule) => `${rule.apiGroups.join()}:${rule.resources.join()}:${rule.verbs.join()}`);
    expect(summary('ClusterRole', 'suigw-suigw-operator')).toEqual([
      'suigw.io:projects,apikeys,warpstreams,onchainplans:get,list,watch,update,patch',
      'suigw.io:projects/status,apikeys/status,warpstreams/status,onchainplans/status:get,update,patch',
      'suigw.io:projects/finalizers,apikeys/finalizers,warpstreams/finalizers,onchainplans/finalizers:update',
      ':secrets:get,list,watch,create,patch',
    ]);
    expect(summary('Role', 'suigw-operator')).toEqual([
      'apps:deployments:get,list,watch,create,update,patch,delete',
      'batch:cronjobs:get,list,watch,create,update,patch,delete',
      'coordination.k8s.io:leases:get,list,watch,create,update,patch',
      'discovery.k8s.io:endpointslices:get,list,watch',
    ]);
    expect(objects.filter((o) => o.kind === 'ClusterRole' || o.kind === 'ClusterRoleBinding').map((o) => o.metadata.name)).toEqual(['suigw-suigw-operator', 'suigw-suigw-operator']);
  });

  it('runs the operator in the release namespace: its Lease, stream workers and the Envoy clusters it serves are there', async () => {
    const { stdout } = await helm(['template', 'suigw', CHART_DIR, '--namespace', 'prod']);
    const objects = parseAllDocuments(stdout).map((document) => document.toJS() as KubeObject | null).filter((object): object is KubeObject => object !== null);
    const container = (find(objects, 'Deployment', 'suigw-operator')!.spec as { template: { spec: { containers: OperatorContainer[] } } }).template.spec.containers[0]!;
    const settings = operatorSettings(loadConfig(podEnv(container.env, 'prod')), { servicePrefix: container.args[container.args.indexOf('--service-prefix') + 1]! });
    expect(settings.namespace).toBe('prod');
    expect(settings.backends.gateway.endpoints).toEqual([{ address: 'suigw-gateway.prod.svc', port: 8080 }]);
    expect(find(objects, 'Service', 'suigw-gateway')).toBeDefined();
  });

  it("gives the stream workers and billing CronJobs the operator creates the Secret the chart's roles read, in the release's namespace where that Secret is", () => {
    for (const name of Object.keys(CASES)) {
      const objects = rendered[name]!;
      const container = (find(objects, 'Deployment', 'suigw-operator')!.spec as { template: { spec: { containers: OperatorContainer[] } } }).template.spec.containers[0]!;
      const rolesSecret = container.env.find((v) => v.name === 'SUIGW_SECRET')!.valueFrom!.secretKeyRef!.name;
      const settings = { ...operatorSettings(loadConfig(podEnv(container.env, 'suigw'))), now: '2026-12-07T00:00:00.000Z' };
      // A plan in a team's namespace, as docs/kubernetes.md and the samples have it.
      const plan = { kind: 'OnchainPlan', metadata: { name: 'acme', namespace: 'team-a', uid: 'u-plan', generation: 1 } } as CustomResource;
      const workloads = [
        streamWorkerDeployment(settings, 'mainnet', 1, 10),
        billingCronJob(settings, plan, { organizationId: 'org_a', network: 'mainnet', tier: 'team', billingDay: 1, suspend: false }),
      ];
      const refs = workloads.map((workload) => [...JSON.stringify(workload).matchAll(/"secretRef":\{"name":"([^"]+)"\}/g)].map((match) => match[1]));
      // A Pod reads a Secret of its own namespace only: the chart's is in the release's (`helm template --namespace suigw`).
      const namespaces = workloads.map((workload) => (workload['metadata'] as { namespace: string }).namespace);
      expect([name, refs, namespaces]).toEqual([name, [[rolesSecret], [rolesSecret]], ['suigw', 'suigw']]);
      // production.values.yaml names secret.existingSecret, which its owner makes in the release's namespace.
      if (name === 'default') expect(find(objects, 'Secret', rolesSecret)).toBeDefined();
    }
  });

  it("gives the stream workers and billing Jobs the operator creates operator.streamWorkers.resources and operator.billingJobs.resources, by default the operator's own defaults", async () => {
    const values = parse(fs.readFileSync(path.join(CHART_DIR, 'values.yaml'), 'utf8')) as { operator: Record<'streamWorkers' | 'billingJobs', { resources: unknown }> };
    const defaults = loadConfig({}).operator;
    expect([values.operator.streamWorkers.resources, values.operator.billingJobs.resources]).toEqual([defaults.streamsResources, defaults.billingResources]);
    const custom = { requests: { cpu: '1', memory: '2Gi' }, limits: { cpu: '2', memory: '3Gi' } };
    const { stdout } = await helm(['template', 'suigw', CHART_DIR, '--namespace', 'suigw', '--set-json', `operator.billingJobs.resources=${JSON.stringify(custom)}`]);
    const objects = parseAllDocuments(stdout).map((document) => document.toJS() as KubeObject | null).filter((object): object is KubeObject => object !== null);
    const container = (find(objects, 'Deployment', 'suigw-operator')!.spec as { template: { spec: { containers: OperatorContainer[] } } }).template.spec.containers[0]!;
    const settings = { ...operatorSettings(loadConfig(podEnv(container.env, 'suigw'))), now: '2026-12-07T00:00:00.000Z' };
    const plan = { kind: 'OnchainPlan', metadata: { name: 'acme', namespace: 'suigw', uid: 'u-plan', generation: 1 } } as CustomResource;
    const streams = streamWorkerDeployment(settings, 'mainnet', 1, 10) as { spec: { template: { spec: { containers: { resources: unknown }[] } } } };
    const billing = billingCronJob(settings, plan, { organizationId: 'org_a', network: 'mainnet', tier: 'team', billingDay: 1, suspend: false }) as {
      spec: { jobTemplate: { spec: { template: { spec: { containers: { resources: unknown }[] } } } } };
    };
    expect(streams.spec.template.spec.containers[0]!.resources).toEqual(values.operator.streamWorkers.resources);
    expect(billing.spec.jobTemplate.spec.template.spec.containers[0]!.resources).toEqual(custom);
  });

  it('lets only Prometheus reach the stream workers the operator creates, at their metrics port (they listen on the pod address for their probes)', () => {
    const objects = rendered.default!;
    const container = (find(objects, 'Deployment', 'suigw-operator')!.spec as { template: { spec: { containers: OperatorContainer[] } } }).template.spec.containers[0]!;
    const settings = { ...operatorSettings(loadConfig(podEnv(container.env, 'suigw'))), now: '2026-12-07T00:00:00.000Z' };
    const worker = (streamWorkerDeployment(settings, 'mainnet', 1, 10) as { spec: { template: { metadata: { labels: Record<string, string> }; spec: { containers: { ports: { name: string }[] }[] } } } }).spec.template;
    type Policy = { podSelector: { matchLabels: Record<string, string> }; ingress: unknown[] };
    const selecting = objects
      .filter((o) => o.kind === 'NetworkPolicy')
      .filter((o) => Object.entries((o.spec as Policy).podSelector.matchLabels).every(([key, value]) => worker.metadata.labels[key] === value));
    expect(selecting.map((o) => [o.metadata.name, (o.spec as Policy).ingress])).toEqual([
      ['suigw-stream-workers', [{ from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }], ports: [{ port: 'metrics' }] }]],
    ]);
    expect(worker.spec.containers[0]!.ports.map((p) => p.name)).toContain('metrics');
    // The chart's own streams role is not one of them: Envoy still reaches it.
    const role = (find(objects, 'Deployment', 'suigw-streams')!.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;
    expect(Object.entries((find(objects, 'NetworkPolicy', 'suigw-stream-workers')!.spec as Policy).podSelector.matchLabels).every(([key, value]) => role[key] === value)).toBe(false);
  });

  it("lets the stream workers and billing Jobs the operator creates (a plan in a team's namespace) reach the bundled PostgreSQL and Redis", () => {
    const objects = rendered.default!;
    const container = (find(objects, 'Deployment', 'suigw-operator')!.spec as { template: { spec: { containers: OperatorContainer[] } } }).template.spec.containers[0]!;
    const settings = { ...operatorSettings(loadConfig(podEnv(container.env, 'suigw'))), now: '2026-12-07T00:00:00.000Z' };
    const plan = { kind: 'OnchainPlan', metadata: { name: 'acme', namespace: 'team-a', uid: 'u-plan', generation: 1 } } as CustomResource;
    type PodTemplate = { metadata: { namespace: string }; spec: { template: { metadata: { labels: Record<string, string> } } } };
    const streams = streamWorkerDeployment(settings, 'mainnet', 1, 10) as PodTemplate;
    const billing = billingCronJob(settings, plan, { organizationId: 'org_a', network: 'mainnet', tier: 'team', billingDay: 1, suspend: false }) as {
      metadata: { namespace: string };
      spec: { jobTemplate: { spec: { template: { metadata: { labels: Record<string, string> } } } } };
    };
    const gateway = (find(objects, 'Deployment', 'suigw-gateway')!.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;
    const pods = {
      gateway: { namespace: 'suigw', labels: gateway },
      streams: { namespace: streams.metadata.namespace, labels: streams.spec.template.metadata.labels },
      billing: { namespace: billing.metadata.namespace, labels: billing.spec.jobTemplate.spec.template.metadata.labels },
    };
    type Peer = { podSelector?: { matchLabels: Record<string, string> }; namespaceSelector?: unknown };
    type Policy = { spec: { podSelector: { matchLabels: Record<string, string> }; ingress: { from?: Peer[]; ports?: { port: number | string }[] }[] } };
    const matches = (selector: Record<string, string>, labels: Record<string, string>) => Object.entries(selector).every(([key, value]) => labels[key] === value);
    // The policies and the databases are in the release's namespace; a podSelector-only peer admits pods of that namespace only.
    const reaches = (pod: { namespace: string; labels: Record<string, string> }, target: string, port: number) => {
      const targetLabels = (find(objects, target === 'postgresql' ? 'StatefulSet' : 'Deployment', `suigw-${target}`)!.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;
      const policies = objects.filter((o) => o.kind === 'NetworkPolicy').map((o) => o as unknown as Policy).filter((p) => matches(p.spec.podSelector.matchLabels, targetLabels));
      const admits = (peer: Peer) => peer.podSelector !== undefined && peer.namespaceSelector === undefined && pod.namespace === 'suigw' && matches(peer.podSelector.matchLabels, pod.labels);
      return policies.length === 0 || policies.some((p) => p.spec.ingress.some((rule) => (rule.ports ?? [{ port }]).some((p) => p.port === port) && (rule.from ?? [{}]).some(admits)));
    };
    const reached = Object.entries(pods).flatMap(([name, pod]) => [`${name} → postgresql ${reaches(pod, 'postgresql', 5432)}`, `${name} → redis ${reaches(pod, 'redis', 6379)}`]);
    expect(reached).toEqual(['gateway → postgresql true', 'gateway → redis true', 'streams → postgresql true', 'streams → redis true', 'billing → postgresql true', 'billing → redis true']);
    // DATABASE_URL names the bundled PostgreSQL by its short Service name, which resolves in the release's namespace only.
    const databaseUrl = (find(objects, 'Secret', 'suigw-config')!.stringData as Record<string, string>).DATABASE_URL!;
    expect([new URL(databaseUrl).hostname, billing.metadata.namespace]).toEqual(['suigw-postgresql', 'suigw']);
  });

  it("points Envoy's bootstrap at the operator's ADS and gets everything else over xDS", () => {
    const bootstrap = parse((find(rendered.default!, 'ConfigMap', 'suigw-envoy')!.data as Record<string, string>)['envoy.yaml']!) as {
      dynamic_resources: Record<string, unknown>;
      static_resources: { clusters: { name: string; load_assignment: { endpoints: { lb_endpoints: { endpoint: { address: unknown } }[] }[] } }[] };
    };
    expect(bootstrap.dynamic_resources).toEqual({
      ads_config: { api_type: 'GRPC', transport_api_version: 'V3', grpc_services: [{ envoy_grpc: { cluster_name: 'xds' } }] },
      lds_config: { ads: {}, resource_api_version: 'V3' },
      cds_config: { ads: {}, resource_api_version: 'V3' },
    });
    const xds = bootstrap.static_resources.clusters.find((cluster) => cluster.name === 'xds')!;
    expect(xds.load_assignment.endpoints[0]!.lb_endpoints[0]!.endpoint.address).toEqual({
      socket_address: { address: 'suigw-operator.suigw.svc', port_value: 18000 },
    });
  });

  it("writes a bootstrap that survives Envoy's own Bootstrap proto without loss or unknown fields", () => {
    const text = (find(rendered.default!, 'ConfigMap', 'suigw-envoy')!.data as Record<string, string>)['envoy.yaml']!;
    const bootstrap = durationsAsMessages(parse(text)) as Record<string, unknown>;
    expect(roundTripLosses('type.googleapis.com/envoy.config.bootstrap.v3.Bootstrap', bootstrap)).toEqual([]);
    expect(roundTripLosses('type.googleapis.com/envoy.config.bootstrap.v3.Bootstrap', { ...bootstrap, admin_port: 9901 })).toEqual(['$.admin_port']);
  });

  it('ships the Grafana dashboard as is, and ServiceMonitors only where prometheus-operator exists', () => {
    const dashboard = find(rendered.default!, 'ConfigMap', 'suigw-dashboard')!;
    expect((dashboard.data as Record<string, string>)['suigw.json']).toBe(fs.readFileSync(path.join(CHART_DIR, 'dashboards/suigw.json'), 'utf8'));
    expect(dashboard.metadata.labels!.grafana_dashboard).toBe('1');
    expect(rendered.default!.filter((o) => o.kind === 'ServiceMonitor')).toEqual([]);
    expect(rendered.production!.filter((o) => o.kind === 'ServiceMonitor').map((o) => o.metadata.name)).toEqual(['suigw', 'suigw-envoy']);
  });

  it('ships the alerting rules file as a PrometheusRule where prometheus-operator exists, runbooks where the values say', () => {
    expect(rendered.default!.filter((o) => o.kind === 'PrometheusRule')).toEqual([]);
    const rule = find(rendered.production!, 'PrometheusRule', 'suigw')!;
    const file = fs.readFileSync(path.join(CHART_DIR, 'rules/suigw.rules.yaml'), 'utf8')
      .replaceAll('https://github.com/suigw/suigw/blob/main/docs/operations.md', 'https://runbooks.acme.dev/suigw');
    expect((rule as unknown as { spec: unknown }).spec).toEqual({ groups: (parse(file) as { groups: unknown[] }).groups });
    expect(rule.metadata.labels!.release).toBe('kube-prometheus-stack');
  });

  it("documents every value of values.yaml in the chart's README", () => {
    const values = parse(fs.readFileSync(path.join(CHART_DIR, 'values.yaml'), 'utf8')) as Record<string, unknown>;
    const readme = fs.readFileSync(path.join(CHART_DIR, 'README.md'), 'utf8');
    // Maps keyed by the user's own names (roles, networks) and free-form maps are documented by pattern.
    const byPattern = new Set(['roles', 'networks', 'resources', 'labels', 'env', 'matchLabels', 'requests', 'limits', 'capabilities', 'seccompProfile']);
    const paths: string[] = [];
    const walk = (value: unknown, prefix: string) => {
      if (!value || typeof value !== 'object' || Array.isArray(value)) return paths.push(prefix);
      const key = prefix.split('.').at(-1)!;
      if (byPattern.has(key) || prefix === 'podSecurityContext' || prefix === 'securityContext' || prefix.endsWith('metricsNamespaceSelector')) return paths.push(prefix);
      for (const [child, item] of Object.entries(value)) walk(item, prefix ? `${prefix}.${child}` : child);
    };
    walk(values, '');
    const undocumented = paths.filter((entry) => {
      const last = entry.split('.').at(-1)!;
      const parent = entry.split('.').slice(0, -1).join('.');
      const written = readme.includes(`\`${entry}\``) || readme.includes(`\`${entry}.`);
      return !written && !(readme.includes(`\`.${last}\``) && readme.includes(`\`${parent}.`));
    });
    expect(undocumented).toEqual([]);
  });

  it('holds in crds/ exactly the CRDs the operator generates (when it has generated them)', () => {
    const generated = path.join(CHART_DIR, '../../crds/generated');
    const manifests = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir).filter((file) => /\.ya?ml$/.test(file)).sort() : []);
    const inChart = manifests(path.join(CHART_DIR, 'crds'));
    expect(inChart).toEqual(manifests(generated));
    for (const file of inChart) {
      expect(fs.readFileSync(path.join(CHART_DIR, 'crds', file), 'utf8')).toBe(fs.readFileSync(path.join(generated, file), 'utf8'));
    }
    expect(rendered.default!.filter((o) => o.kind === 'CustomResourceDefinition')).toHaveLength(inChart.length);
  });
});

/** Envoy's YAML writes Durations as proto3 JSON strings (`0.25s`); protobufjs wants `{seconds, nanos}`. */
function durationsAsMessages(value: unknown): unknown {
  if (typeof value === 'string') {
    const match = /^(\d+)(?:\.(\d{1,9}))?s$/.exec(value);
    return match ? { seconds: Number(match[1]), nanos: Number((match[2] ?? '').padEnd(9, '0')) } : value;
  }
  if (Array.isArray(value)) return value.map(durationsAsMessages);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, durationsAsMessages(item)]));
  return value;
}

function toYaml(object: KubeObject): string {
  return new Document(object).toString({ lineWidth: 0 });
}
