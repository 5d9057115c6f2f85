import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { parseAllDocuments } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { operatorSettings } from '../../operator/settings.js';
import type { CustomResource } from '../../operator/translate/types.js';
import { billingCronJob, streamWorkerDeployment } from '../../operator/translate/workloads.js';
import { loadConfig } from '../../services/core/index.js';
import { CHART_DIR, helm } from '../support/helm.js';
import type { KubeObject } from './kubernetes-schemas.js';

/**
 * The stream workers and billing Jobs the operator creates read what the chart's roles read:
 * `config.env` (its ConfigMap, named to the operator in SUIGW_OPERATOR_ENV_CONFIGMAP) and every key
 * of the Secret. Before, they got the Secret's keys alone: a worker without its network's upstream,
 * default plans and webhook addresses; a billing Job without SUIGW_BILLING_NETWORKS.
 */
const SPONSOR_KEY = new Ed25519Keypair().getSecretKey();
const BILLING_NETWORKS = JSON.stringify({
  mainnet: { packageId: `0x${'1'.repeat(64)}`, configId: `0x${'2'.repeat(64)}`, usdcType: `0x${'3'.repeat(64)}::usdc::USDC`, treasury: `0x${'4'.repeat(64)}` },
});
const VALUES = [
  '--set', 'config.env.SUI_MAINNET_GRPC_URL=https://fullnode.mainnet.sui.io:443',
  '--set', 'config.env.SUI_MAINNET_GRAPHQL_URL=https://graphql.mainnet.sui.io/graphql',
  '--set', 'config.env.SUIGW_WEBHOOK_ALLOWED_ADDRESSES=10.0.0.0/8',
  '--set', 'config.logLevel=debug',
  // A JSON string value: --set would split it at its commas.
  '--set-json', `config.env.SUIGW_BILLING_NETWORKS=${JSON.stringify(BILLING_NETWORKS)}`,
  '--set', `secret.extra.SUIGW_BILLING_SPONSOR_KEY=${SPONSOR_KEY}`,
];

interface Container {
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string }; fieldRef?: { fieldPath: string } } }[];
  envFrom?: { secretRef?: { name: string }; configMapRef?: { name: string } }[];
}

describe("the environment of the operator's stream workers and billing Jobs under the chart", () => {
  let objects: KubeObject[];
  const find = (kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name)!;

  /** What the kubelet gives a container: envFrom's sources in order (a later wins), then `env` over them. */
  function podEnv(container: Container): Record<string, string> {
    const env: Record<string, string> = {};
    for (const from of container.envFrom ?? []) {
      const data = from.configMapRef ? find('ConfigMap', from.configMapRef.name).data : find('Secret', from.secretRef!.name).stringData;
      Object.assign(env, data as Record<string, string>);
    }
    const fields: Record<string, string> = { 'metadata.namespace': 'suigw', 'metadata.name': 'suigw-operator-0' };
    for (const variable of container.env ?? []) {
      const { secretKeyRef, fieldRef } = variable.valueFrom ?? {};
      env[variable.name] = secretKeyRef ? (find('Secret', secretKeyRef.name).stringData as Record<string, string>)[secretKeyRef.key]! : fieldRef ? fields[fieldRef.fieldPath]! : variable.value!;
    }
    return env;
  }

  /** A Deployment's, Job's or CronJob's first container. */
  const containerOf = (workload: unknown) => {
    const { spec } = workload as { spec: unknown };
    const pod = spec as { template?: { spec: { containers: Container[] } }; jobTemplate?: { spec: { template: { spec: { containers: Container[] } } } } };
    return (pod.template ?? pod.jobTemplate!.spec.template).spec.containers[0]!;
  };

  let workers: { streams: Container; billing: Container };

  beforeAll(async () => {
    const { stdout } = await helm(['template', 'suigw', CHART_DIR, '--namespace', 'suigw', ...VALUES]);
    objects = parseAllDocuments(stdout).map((document) => document.toJS() as KubeObject | null).filter((object): object is KubeObject => object !== null);
    const operator = podEnv(containerOf(find('Deployment', 'suigw-operator')));
    const settings = { ...operatorSettings(loadConfig(operator)), now: '2026-12-07T00:00:00.000Z' };
    const plan = { kind: 'OnchainPlan', metadata: { name: 'acme', namespace: 'team-a', uid: 'u-plan', generation: 1 } } as CustomResource;
    workers = {
      streams: containerOf(streamWorkerDeployment(settings, 'mainnet', 1, 10)),
      billing: containerOf(billingCronJob(settings, plan, { organizationId: 'org_a', network: 'mainnet', tier: 'team', billingDay: 1, suspend: false })),
    };
  }, 60_000);

  it("tells the operator the ConfigMap of the roles' settings (SUIGW_OPERATOR_ENV_CONFIGMAP), beside their Secret", () => {
    const env = podEnv(containerOf(find('Deployment', 'suigw-operator')));
    expect([env.SUIGW_OPERATOR_ENV_CONFIGMAP, env.SUIGW_OPERATOR_ENV_SECRET]).toEqual(['suigw-environment', 'suigw-config']);
    expect(find('ConfigMap', 'suigw-environment').data).toMatchObject({ LOG_LEVEL: 'debug', SUI_MAINNET_GRPC_URL: 'https://fullnode.mainnet.sui.io:443' });
  });

  it("gives a stream worker everything the chart's streams role reads but its own listeners and network", () => {
    // SUIGW_TRUST_PROXY is the role's, behind Envoy: a worker's listeners (probes, metrics) serve no visitor.
    const own = ['HOST', 'PORT', 'SUIGW_METRICS_PORT', 'SUIGW_NETWORKS', 'SUIGW_TRUST_PROXY'];
    const role = podEnv(containerOf(find('Deployment', 'suigw-streams')));
    const worker = podEnv(workers.streams);
    const without = (env: Record<string, string>) => Object.fromEntries(Object.entries(env).filter(([name]) => !own.includes(name)));
    expect(without(worker)).toEqual(without(role));
    const config = loadConfig(worker);
    expect([config.endpoints.mainnet.grpcUrl, config.webhooks.allowedAddresses, config.logLevel]).toEqual(['https://fullnode.mainnet.sui.io:443', ['10.0.0.0/8'], 'debug']);
  });

  it("writes the settings into the migrations Job itself: a pre-upgrade hook runs before the release's ConfigMap is updated (or made)", () => {
    const job = containerOf(find('Job', 'suigw-migrate'));
    expect(job.envFrom).toEqual([{ secretRef: { name: 'suigw-config' } }]);
    expect(podEnv(job)).toMatchObject(find('ConfigMap', 'suigw-environment').data as Record<string, string>);
  });

  it('gives a billing Job the billing networks and the sponsor key it charges with', () => {
    const config = loadConfig(podEnv(workers.billing));
    expect([Object.keys(config.billing.networks), config.billing.sponsorKey, config.billing.organizationId]).toEqual([['mainnet'], SPONSOR_KEY, 'org_a']);
  });
});
