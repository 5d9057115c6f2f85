import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { BACKEND_PORTS } from '../../operator/index.js';
import { CHART_DIR, helm } from '../support/helm.js';
import { schemaErrors, type KubeObject } from './kubernetes-schemas.js';

/**
 * The values charts/suigw refuses, through the real helm binary: values.schema.json (types,
 * ranges, enums, unknown keys) and the `suigw.validate` helper (release name, ports used twice
 * in one pod). Each bad input fails with helm's error and the reason; every documented example
 * still renders objects valid against Kubernetes' schemas.
 */
const template = (args: string[], release = 'suigw') => helm(['template', release, CHART_DIR, '--namespace', 'suigw', ...args]);

/** The invocations the documentation shows (README.md, charts/suigw/README.md, values.yaml, scripts/e2e-kind.sh). */
const DOCUMENTED: Record<string, string[]> = {
  'README.md Deploy: own hosts, testnet removed': ['--set', 'networks.mainnet.httpHosts={api.example.org}', '--set', 'networks.mainnet.grpcHosts={grpc.example.org}', '--set', 'networks.testnet=null'],
  'charts/suigw/README.md: an image of another name': ['--set', 'image.repository=registry.example.com/suigw', '--set', 'image.tag=0.1.0'],
  'scripts/e2e-kind.sh: the built image, Envoy as a NodePort': ['--set', 'image.repository=ghcr.io/suigw/suigw', '--set', 'image.tag=0.1.0', '--set', 'envoy.service.type=NodePort'],
  'values.yaml: config.env, workers matched to the CPU, a load balancer in front': ['--set', 'config.env.SUI_MAINNET_GRPC_URL=https://fullnode.mainnet.sui.io:443', '--set', 'config.env.SUI_MAINNET_GRAPHQL_URL=https://graphql.mainnet.sui.io/graphql', '--set', 'roles.gateway.workers=4', '--set', 'envoy.trustedProxyHops=1'],
  'values.yaml: managed PostgreSQL and Redis by URL': ['--set', 'postgresql.enabled=false', '--set', 'secret.databaseUrl=postgres://suigw:pw@db.example.com:5432/suigw', '--set', 'redis.enabled=false', '--set', 'secret.redisUrl=redis://cache.example.com:6379'],
  'charts/suigw/README.md: ServiceMonitor and PrometheusRule forced on': ['--set', 'metrics.serviceMonitor.enabled=true', '--set', 'metrics.prometheusRule.enabled=true'],
  'charts/suigw/README.md: monitoring and dashboard off': ['--set', 'metrics.serviceMonitor.enabled=false', '--set', 'metrics.prometheusRule.enabled=false', '--set', 'metrics.dashboard.enabled=false'],
  'test/helm/testdata/production.values.yaml': ['-f', 'test/helm/testdata/production.values.yaml'],
  'docs/kubernetes.md: the billing sponsor key and SMTP URL in secret.extra': ['--set', 'secret.extra.SUIGW_BILLING_SPONSOR_KEY=suiprivkey1qzdlfxn2qa2lj5uprl8pyhexs02sg2wrhdy7qaq50cqgnffw4c2477kg9h3', '--set', 'secret.extra.SUIGW_SMTP_URL=smtps://billing:pw@smtp.example.com:465'],
};

/** Values at each bound of a range: they render. */
const AT_BOUNDS: [string, string[]][] = [
  ['ports 1 and 65535', ['--set', 'envoy.port=1', '--set', 'envoy.service.port=65535', '--set', 'operator.xdsPort=65535']],
  ['streams with 0 replicas, the others with 1', ['--set', 'roles.streams.replicas=0', '--set', 'roles.gateway.replicas=1', '--set', 'envoy.replicas=1', '--set', 'operator.replicas=1']],
  ['16 trusted proxy hops, 64 workers, backoffLimit 0', ['--set', 'envoy.trustedProxyHops=16', '--set', 'roles.authz.workers=64', '--set', 'migrations.backoffLimit=0']],
  ['workers auto, a percentage of unavailable pods', ['--set', 'roles.grpc.workers=auto', '--set', 'podDisruptionBudget.maxUnavailable=25%']],
  ['the devnet network', ['--set', 'networks.devnet.httpHosts={devnet.api.example.com}']],
];

const SCHEMA_ERROR = "values don't meet the specifications of the schema(s) in the following chart(s):\nsuigw:\n";

/** Bad values and the line of helm's error that names them. */
const REFUSED: [string, string[], string][] = [
  ['a port that is not a number', ['--set', 'envoy.port=abc'], '- envoy.port: Invalid type. Expected: integer, given: string'],
  ['port 0', ['--set', 'envoy.port=0'], '- envoy.port: Must be greater than or equal to 1'],
  ['port 65536', ['--set', 'roles.gateway.port=65536'], '- roles.gateway.port: Must be less than or equal to 65535'],
  ['a service port that is not a number', ['--set', 'envoy.service.port=http'], '- envoy.service.port: Invalid type. Expected: integer, given: string'],
  ['no operator', ['--set', 'operator.replicas=0'], '- operator.replicas: Must be greater than or equal to 1'],
  ['no gateway', ['--set', 'roles.gateway.replicas=0'], '- roles.gateway.replicas: Must be greater than or equal to 1'],
  ['negative streams replicas', ['--set', 'roles.streams.replicas=-1'], '- roles.streams.replicas: Must be greater than or equal to 0'],
  ['17 trusted proxy hops (the operator takes 0-16)', ['--set', 'envoy.trustedProxyHops=17'], '- envoy.trustedProxyHops: Must be less than or equal to 16'],
  ['65 workers (SUIGW_WORKERS takes 1-64)', ['--set', 'roles.authz.workers=65'], '- roles.authz.workers: Must validate at least one schema (anyOf)'],
  ['workers on streams (it reads none)', ['--set', 'roles.streams.workers=2'], '- roles.streams: Additional property workers is not allowed'],
  ['a misspelt role', ['--set', 'roles.gatewya.replicas=2'], '- roles: Additional property gatewya is not allowed'],
  ['a misspelt top-level value', ['--set', 'envoi.port=8080'], '- (root): Additional property envoi is not allowed'],
  ['a misspelt resources key', ['--set', 'roles.grpc.resources.limit.memory=1Gi'], '- roles.grpc.resources: Additional property limit is not allowed'],
  ['an unknown Service type', ['--set', 'envoy.service.type=Ingress'], '- envoy.service.type: envoy.service.type must be one of the following: "ClusterIP", "NodePort", "LoadBalancer"'],
  ['an unknown log level', ['--set', 'config.logLevel=verbose'], '- config.logLevel: config.logLevel must be one of the following: "fatal", "error", "warn", "info", "debug", "trace", "silent"'],
  ['an unknown network', ['--set', 'networks.devnett.httpHosts={a.example.com}'], '- networks: Property name of "devnett" does not match'],
  ['no network at all', ['--set', 'networks.mainnet=null', '--set', 'networks.testnet=null'], '- networks: Must have at least 1 properties'],
  ['an unknown pull policy', ['--set', 'image.pullPolicy=Sometimes'], '- image.pullPolicy: image.pullPolicy must be one of the following: "Always", "IfNotPresent", "Never"'],
  ['ServiceMonitor enabled "yes"', ['--set', 'metrics.serviceMonitor.enabled=yes'], '- metrics.serviceMonitor.enabled: metrics.serviceMonitor.enabled must be one of the following: "auto", true, false, "true", "false"'],
  ['another API group than the operator serves', ['--set', 'crds.group=example.io'], '- crds.group: crds.group must be one of the following: "suigw.io"'],
  ['a database URL of another scheme', ['--set', 'postgresql.enabled=false', '--set', 'secret.databaseUrl=mysql://db/suigw'], "- secret.databaseUrl: Does not match pattern '^(postgres(ql)?://.+)?$'"],
  ['a shutdown delay past a minute', ['--set', 'shutdown.delaySeconds=61'], '- shutdown.delaySeconds: Must be less than or equal to 60'],
  ['a security context field of the wrong type', ['--set', 'securityContext.readOnlyRootFilesystem=yes'], '- securityContext.readOnlyRootFilesystem: Invalid type. Expected: boolean, given: string'],
];

const RELEASE_NAME = (name: string) =>
  `release name "${name}": this chart names Services after the release, so it must be a DNS-1035 label (lower-case letters, digits and '-', starting with a letter and ending with a letter or digit; no dots)`;

const CLASHES: [string, string[], string][] = [
  ['a role port equal to the metrics port', ['--set', 'metrics.port=8080'], 'port 8080 is used twice in the gateway pod: by roles.gateway.port and by metrics.port; give each its own port'],
  ['the xDS port equal to the metrics port', ['--set', 'operator.xdsPort=9464'], 'port 9464 is used twice in the operator pod: by operator.xdsPort and by metrics.port; give each its own port'],
  ["Envoy's public port on its readiness port", ['--set', 'envoy.port=19001'], "port 19001 is used twice in the envoy pod: by envoy.port and by Envoy's readiness and stats listener; give each its own port"],
  ["Envoy's public port on its admin port", ['--set', 'envoy.port=9901'], "port 9901 is used twice in the envoy pod: by envoy.port and by Envoy's admin interface; give each its own port"],
  ["the metrics port on a moved role's fixed Service port", ['--set', 'roles.gateway.port=8081', '--set', 'metrics.port=8080'], "port 8080 is used twice in the gateway role's Service: by the gateway Service's port (fixed: Envoy dials it) and by metrics.port; give each its own port"],
];

function objectsOf(stdout: string): KubeObject[] {
  return parseAllDocuments(stdout)
    .map((document) => document.toJS() as KubeObject | null)
    .filter((object): object is KubeObject => object !== null);
}

describe('charts/suigw values: what the chart refuses, and the examples it renders', () => {
  it.each(Object.entries(DOCUMENTED))('renders the documented example: %s', async (_name, args) => {
    const objects = objectsOf((await template(args)).stdout);
    expect(objects.length).toBeGreaterThan(20);
    expect(objects.map(schemaErrors).filter(Boolean)).toEqual([]);
  });

  it.each(AT_BOUNDS)('renders values at the bounds: %s', async (_name, args) => {
    expect(objectsOf((await template(args)).stdout).map(schemaErrors).filter(Boolean)).toEqual([]);
  });

  it.each(REFUSED)('refuses %s (values.schema.json)', async (_name, args, line) => {
    const error = await template(args).then(() => undefined, (failure: Error) => failure);
    expect(error?.message).toContain(SCHEMA_ERROR);
    expect(error?.message).toContain(`${line}\n`);
  });

  it.each(['my.release', '1st', 'suigw.prod'])('refuses the release name %s, which no Service can carry', async (name) => {
    await expect(template([], name)).rejects.toThrow(RELEASE_NAME(name));
  });

  it('renders release names that are DNS-1035 labels', async () => {
    for (const name of ['s', 'suigw-prod', 'prod2']) expect((await template([], name)).stdout).toContain(`name: ${name}`);
  });

  it.each(CLASHES)('refuses %s (one port, two listeners in a pod)', async (_name, args, message) => {
    await expect(template(args)).rejects.toThrow(`execution error at (suigw/templates/validate.yaml:2:4): ${message}`);
  });

  it("keeps each role's Service on the port Envoy dials (the operator's BACKEND_PORTS) when its container listens elsewhere", async () => {
    const listening: Record<string, number> = { gateway: 8081, grpc: 9091, authz: 9011, ratelimit: 9012, streams: 8091 };
    const objects = objectsOf((await template(Object.entries(listening).flatMap(([role, port]) => ['--set', `roles.${role}.port=${port}`]))).stdout);
    for (const [role, { port }] of Object.entries(BACKEND_PORTS)) {
      const service = objects.find((object) => object.kind === 'Service' && object.metadata.name === `suigw-${role}`) as { spec: { ports: unknown[] } } | undefined;
      expect(service?.spec.ports[0]).toMatchObject({ port, targetPort: listening[role] });
    }
  });

  it('refuses a shutdown delay that leaves no grace to drain', async () => {
    await expect(template(['--set', 'shutdown.delaySeconds=30'])).rejects.toThrow(
      'shutdown.delaySeconds (30) must be below shutdown.gracePeriodSeconds (30): the delay counts against the grace period, and the process needs time to drain after it',
    );
  });

  it('stops each role gracefully (preStop delay inside the grace period) and probes liveness without its dependencies', async () => {
    const objects = objectsOf((await template(['--set', 'shutdown.delaySeconds=7', '--set', 'shutdown.gracePeriodSeconds=45'])).stdout);
    for (const role of Object.keys(BACKEND_PORTS)) {
      const deployment = objects.find((object) => object.kind === 'Deployment' && object.metadata.name === `suigw-${role}`) as
        { spec: { template: { spec: { terminationGracePeriodSeconds: number; containers: { lifecycle: unknown; livenessProbe: { httpGet?: { path: string } } }[] } } } } | undefined;
      const pod = deployment!.spec.template.spec;
      expect(pod.terminationGracePeriodSeconds).toBe(45);
      expect(pod.containers[0]!.lifecycle).toEqual({ preStop: { exec: { command: ['sleep', '7'] } } });
      // HTTP roles: /health/live (the process), never /health (503 while PostgreSQL is down).
      if (role === 'gateway' || role === 'streams') expect(pod.containers[0]!.livenessProbe.httpGet?.path).toBe('/health/live');
    }
  });

  it('passes helm lint --strict, and lint reports a bad value', async () => {
    expect((await helm(['lint', '--strict', CHART_DIR])).stdout).toContain('0 chart(s) failed');
    const error = await helm(['lint', '--strict', CHART_DIR, '--set', 'envoy.port=abc']).then(() => undefined, (failure: Error & { stdout: string }) => failure);
    expect(error?.message).toContain('1 chart(s) failed');
    expect(error?.stdout).toContain('[ERROR] values.yaml: - envoy.port: Invalid type. Expected: integer, given: string');
  });

  it('is a draft-07 schema giving every value of values.yaml a type', () => {
    const schema = JSON.parse(fs.readFileSync(path.join(CHART_DIR, 'values.schema.json'), 'utf8')) as Schema;
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    const values = parse(fs.readFileSync(path.join(CHART_DIR, 'values.yaml'), 'utf8')) as unknown;
    const untyped: string[] = [];
    const walk = (value: unknown, node: Schema | undefined, at: string): void => {
      const resolved = node && resolve(schema, node);
      if (!resolved || !(resolved.type || resolved.enum || resolved.anyOf)) untyped.push(at || '(root)');
      if (!resolved || !value || typeof value !== 'object' || Array.isArray(value)) return;
      for (const [key, item] of Object.entries(value)) {
        const child = resolved.properties?.[key] ?? (typeof resolved.additionalProperties === 'object' ? resolved.additionalProperties : undefined);
        walk(item, child, at ? `${at}.${key}` : key);
      }
    };
    walk(values, schema, '');
    expect(untyped).toEqual([]);
  });
});

interface Schema {
  $schema?: string;
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  anyOf?: Schema[];
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  definitions?: Record<string, Schema>;
}

function resolve(root: Schema, node: Schema): Schema | undefined {
  if (!node.$ref) return node;
  const name = node.$ref.replace('#/definitions/', '');
  return root.definitions?.[name];
}
