import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../services/core/index.js';
import { CHART_DIR, helm } from '../support/helm.js';
import type { KubeObject } from './kubernetes-schemas.js';

/**
 * Secrets beyond SUIGW_SECRET, DATABASE_URL and REDIS_URL (on-chain billing's sponsor key, an SMTP
 * URL with its password) reach every suigw pod from the chart's Secret (`secret.extra`) or the
 * user's (`secret.existingSecret`), and are written nowhere else: not in a pod spec, not in a
 * ConfigMap. `config.env`, which is written into both, refuses them.
 */
const SPONSOR_KEY = new Ed25519Keypair().getSecretKey();
const SMTP_URL = 'smtps://billing:s3cret-smtp-password@smtp.example.com:465';

const template = (args: string[]) => helm(['template', 'suigw', CHART_DIR, '--namespace', 'suigw', ...args]);

function objectsOf(stdout: string): KubeObject[] {
  return parseAllDocuments(stdout)
    .map((document) => document.toJS() as KubeObject | null)
    .filter((object): object is KubeObject => object !== null);
}

interface Container {
  name: string;
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
  envFrom?: { secretRef?: { name: string }; configMapRef?: { name: string } }[];
}

/** The suigw containers of the chart's workloads (the image's roles, the migrations Job, the operator), by workload name. */
function suigwContainers(objects: KubeObject[]): [string, Container][] {
  return objects
    .filter((object) => ['Deployment', 'Job'].includes(object.kind))
    .flatMap((object) => (object.spec as { template: { spec: { containers: (Container & { image: string })[] } } }).template.spec.containers
      .filter((container) => container.image.startsWith('ghcr.io/suigw/suigw:'))
      .map((container) => [object.metadata.name, container] as [string, Container]));
}

/** The environment the kubelet gives a container: the Secrets' keys (envFrom), then `env` over them. */
function podEnv(container: Container, secrets: Record<string, Record<string, string>>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const source of container.envFrom ?? []) if (source.secretRef) Object.assign(env, secrets[source.secretRef.name]);
  for (const variable of container.env ?? []) {
    const ref = variable.valueFrom?.secretKeyRef;
    if (ref) env[variable.name] = secrets[ref.name]![ref.key]!;
    else if (variable.value !== undefined) env[variable.name] = variable.value;
  }
  return env;
}

describe('charts/suigw secrets other than SUIGW_SECRET, DATABASE_URL and REDIS_URL', () => {
  it('puts secret.extra in the chart Secret only, and every suigw pod (roles, migrations, operator) reads it from there', async () => {
    const objects = objectsOf((await template(['--set', `secret.extra.SUIGW_BILLING_SPONSOR_KEY=${SPONSOR_KEY}`, '--set', `secret.extra.SUIGW_SMTP_URL=${SMTP_URL}`])).stdout);
    const secret = objects.find((object) => object.kind === 'Secret' && object.metadata.name === 'suigw-config')!.stringData as Record<string, string>;
    expect([secret.SUIGW_BILLING_SPONSOR_KEY, secret.SUIGW_SMTP_URL]).toEqual([SPONSOR_KEY, SMTP_URL]);
    // Written nowhere else: no pod spec, ConfigMap or any other object holds either value.
    const holding = objects.filter((object) => [SPONSOR_KEY, 's3cret-smtp-password'].some((value) => JSON.stringify(object).includes(value)));
    expect(holding.map((object) => `${object.kind}/${object.metadata.name}`)).toEqual(['Secret/suigw-config']);
    const containers = suigwContainers(objects);
    expect(containers.map(([workload]) => workload).sort()).toEqual(['suigw-authz', 'suigw-gateway', 'suigw-grpc', 'suigw-migrate', 'suigw-operator', 'suigw-ratelimit', 'suigw-streams']);
    for (const [workload, container] of containers) {
      const config = loadConfig(podEnv(container, { 'suigw-config': secret }));
      expect([workload, config.billing.sponsorKey, config.billing.smtpUrl]).toEqual([workload, SPONSOR_KEY, SMTP_URL]);
    }
  });

  it("reads every key of an existing Secret (secret.existingSecret), the chart writing none of it", async () => {
    const objects = objectsOf((await template(['--set', 'secret.existingSecret=suigw-prod'])).stdout);
    expect(objects.filter((object) => object.kind === 'Secret')).toEqual([]);
    const theirs = { SUIGW_SECRET: 'x'.repeat(48), DATABASE_URL: 'postgres://suigw@db:5432/suigw', REDIS_URL: 'redis://redis:6379', SUIGW_BILLING_SPONSOR_KEY: SPONSOR_KEY };
    for (const [workload, container] of suigwContainers(objects)) {
      expect([workload, loadConfig(podEnv(container, { 'suigw-prod': theirs })).billing.sponsorKey]).toEqual([workload, SPONSOR_KEY]);
    }
  });

  it.each(['SUIGW_BILLING_SPONSOR_KEY', 'SUIGW_SMTP_URL', 'SUIGW_ZKLOGIN_SALT_SECRET', 'SUIGW_SECRET', 'DATABASE_URL', 'REDIS_URL'])('refuses the secret %s in config.env, which would write it into every pod spec', async (key) => {
    await expect(template(['--set', `config.env.${key}=value`])).rejects.toThrow(
      `config.env.${key}: a secret, which config.env would write into every pod spec in clear; put it in secret.extra (or in the Secret secret.existingSecret names)`,
    );
  });

  it('refuses secret.extra beside secret.existingSecret (the chart makes no Secret to hold it)', async () => {
    await expect(template(['--set', 'secret.existingSecret=suigw-prod', '--set', `secret.extra.SUIGW_SMTP_URL=${SMTP_URL}`])).rejects.toThrow(
      'secret.extra (SUIGW_SMTP_URL): the chart makes no Secret when secret.existingSecret is set; put these keys in the Secret "suigw-prod"',
    );
  });

  it.each(['SUIGW_SECRET', 'DATABASE_URL', 'REDIS_URL', 'POSTGRES_PASSWORD'])('refuses secret.extra.%s, a key the chart sets itself', async (key) => {
    await expect(template(['--set', `secret.extra.${key}=value`])).rejects.toThrow(`secret.extra.${key}: the chart sets this key of its Secret itself`);
  });
});
