import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CONFIG_DOCS } from '../../services/core/index.js';
import type { CustomResource, TranslationInput } from './types.js';
import { billingCronJob, streamWorkerDeployment } from './workloads.js';

/**
 * The pods the operator creates read what the chart's roles read: the ConfigMap of `config.env`
 * (SUIGW_OPERATOR_ENV_CONFIGMAP) and the Secret (SUIGW_OPERATOR_ENV_SECRET), whose keys win; and
 * what a container sets itself is a variable the config schema reads.
 */
interface Container {
  env: { name: string; value: string }[];
  envFrom: unknown[];
}

const { settings } = parse(readFileSync(join(import.meta.dirname, '..', 'testdata', 'billing.in.yaml'), 'utf8')) as TranslationInput;
const plan = { kind: 'OnchainPlan', metadata: { name: 'acme', namespace: 'team-a', uid: 'p1', generation: 1 } } as CustomResource;
const spec = { organizationId: 'org_a', network: 'mainnet', tier: 'growth', billingDay: 17, suspend: false } as const;

function containers(envConfigMap: string | undefined): { streams: Container; billing: Container } {
  const withMap = { ...settings, envConfigMap };
  const streams = streamWorkerDeployment(withMap, 'mainnet', 1, 10) as { spec: { template: { spec: { containers: Container[] } } } };
  const billing = billingCronJob(withMap, plan, spec) as { spec: { jobTemplate: { spec: { template: { spec: { containers: Container[] } } } } } };
  return { streams: streams.spec.template.spec.containers[0]!, billing: billing.spec.jobTemplate.spec.template.spec.containers[0]! };
}

describe("the environment of the operator's stream workers and billing Jobs", () => {
  it('is the ConfigMap of the roles\' environment, then the Secret (the later wins), when the operator is told the ConfigMap', () => {
    const { streams, billing } = containers('suigw-environment');
    const expected = [{ configMapRef: { name: 'suigw-environment' } }, { secretRef: { name: 'suigw-env' } }];
    expect([streams.envFrom, billing.envFrom]).toEqual([expected, expected]);
  });

  it('is the Secret alone when no ConfigMap is named', () => {
    const { streams, billing } = containers(undefined);
    expect([streams.envFrom, billing.envFrom]).toEqual([[{ secretRef: { name: 'suigw-env' } }], [{ secretRef: { name: 'suigw-env' } }]]);
  });

  it("tells a billing Job its plan's organization only: the pass reads network, tier and renewal day from the database", () => {
    expect(containers(undefined).billing.env).toEqual([{ name: 'SUIGW_BILLING_ORGANIZATION', value: 'org_a' }]);
  });

  it('sets in its containers only variables the config schema reads', () => {
    const { streams, billing } = containers('suigw-environment');
    const unread = [...streams.env, ...billing.env].map(({ name }) => name).filter((name) => !(name in CONFIG_DOCS));
    expect(unread).toEqual([]);
  });
});
