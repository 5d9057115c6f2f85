import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fromBase64 } from '@mysten/sui/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import type { Operator } from '../../operator/runtime/operator.js';
import type { KubeApiDouble } from '../../test/support/kube-api-server/api-server.js';
import { eventually, kubeConfigFor, startApiDouble, testOperator } from '../../test/support/kube-api-server/harness.js';
import { SIMNET_BILLING, startBillingHarness, type BillingHarness } from '../../test/support/billing-harness.js';
import { CLI_TIMEOUT_MS, runCli } from '../../test/support/cli.js';

const DAY = 86_400_000;

/**
 * The OnchainPlan custom resource and the API are two views of one subscription: an OnchainPlan
 * created through the Kubernetes API (the API-server double, with the operator reconciling it)
 * becomes a CronJob whose container runs, with its own args and env (plus the `suigw-env`
 * secret's settings), `suigw billing` for that plan's organization only, against simnet.
 */
describe('OnchainPlan → CronJob → suigw billing for that plan', () => {
  let h: BillingHarness;
  let api: KubeApiDouble;
  let apiUrl: string;
  let operator: Operator;
  const plans: Record<string, { organizationId: string; allowanceId: string }> = {};
  beforeAll(async () => {
    h = await startBillingHarness({ seed: 'billing-cronjob', start: Date.now() - 31 * DAY });
    const { createOrganization } = await import('../identity/index.js');
    for (const [name, funderLabel] of [['acme', 'grace'], ['other', 'ivan']] as const) {
      const { organization } = await createOrganization(h.db.database.db, h.clock, { name, tier: 'free', projects: [{ name: 'T', network: 'testnet' }] });
      const funder = h.account(funderLabel);
      const prepared = await h.billing.service.prepare(organization.id, { network: 'testnet', tier: 'team', interval: 'month', funderAddress: funder.address, prefundPeriods: 2 });
      const bytes = fromBase64(prepared.txBytes);
      const result = await h.sui.core.executeTransaction({ transaction: bytes, signatures: [(await funder.keypair.signTransaction(bytes)).signature], include: { objectTypes: true } });
      h.simnet.seal();
      const allowanceId = Object.entries(result.Transaction!.objectTypes!).find(([, type]) => type.includes('::allowance::Allowance<'))![0];
      await h.billing.service.activate(organization.id, { network: 'testnet', tier: 'team', interval: 'month', allowanceId });
      plans[name] = { organizationId: organization.id, allowanceId };
    }
    h.simnet.advanceClockTo(Date.now());
    ({ api, url: apiUrl } = await startApiDouble());
    operator = testOperator(apiUrl, 'operator', h.db.database, h.clock);
    await operator.start();
  });
  afterAll(async () => {
    await operator?.stop();
    await api?.close();
    await h?.close();
  });

  it('the CronJob of acme’s OnchainPlan charges acme’s renewal and nobody else’s', async () => {
    const kubeConfig = kubeConfigFor(apiUrl, 'platform-team');
    await kubeConfig.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
      group: 'suigw.io', version: 'v1alpha1', namespace: 'suigw', plural: 'onchainplans',
      body: {
        apiVersion: 'suigw.io/v1alpha1', kind: 'OnchainPlan', metadata: { name: 'acme' },
        spec: { organizationId: plans['acme']!.organizationId, network: 'testnet', tier: 'team', billingDay: new Date(Date.now()).getUTCDate() },
      },
    });
    const batch = kubeConfig.makeApiClient(BatchV1Api);
    const cronJob = await eventually(
      () => batch.readNamespacedCronJob({ name: 'suigw-billing-suigw-acme-c727a466b9', namespace: 'suigw' }).catch(() => undefined),
      'the operator applies the CronJob of the OnchainPlan',
      30_000,
    );
    const [container] = cronJob.spec!.jobTemplate.spec!.template.spec!.containers;
    expect(container!.args).toEqual(['billing']);
    expect(container!.envFrom).toEqual([{ secretRef: { name: 'suigw-env' } }]);
    // What the deployment keeps in the suigw-env secret: database, upstreams, billing settings.
    const secretEnv = {
      DATABASE_URL: h.db.url,
      SUIGW_DATA_DIR: join(tmpdir(), 'suigw-billing-cronjob'),
      SUI_TESTNET_GRPC_URL: h.simnet.grpcUrl, SUI_TESTNET_GRAPHQL_URL: h.simnet.graphqlUrl,
      SUI_MAINNET_GRPC_URL: h.simnet.grpcUrl, SUI_MAINNET_GRAPHQL_URL: h.simnet.graphqlUrl,
      SUIGW_BILLING_NETWORKS: JSON.stringify({ testnet: SIMNET_BILLING }),
      SUIGW_BILLING_SPONSOR_KEY: h.account('deployer').keypair.getSecretKey(),
    };
    const result = await runCli(container!.args!, { ...secretEnv, ...Object.fromEntries((container!.env ?? []).map((entry) => [entry.name, entry.value ?? ''])) });
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(result.stdout.trim().split('\n').at(-1)!)).toMatchObject({ charged: 1, declined: 0, unavailable: 0 });
    expect(h.simnet.ledger.getAllowance(plans['acme']!.allowanceId)!.lifetimeSpent).toBe(2n * 49_000_000n);
    expect(h.simnet.ledger.getAllowance(plans['other']!.allowanceId)!.lifetimeSpent).toBe(49_000_000n);
  }, CLI_TIMEOUT_MS);
});
