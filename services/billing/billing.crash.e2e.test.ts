import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fromBase64 } from '@mysten/sui/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../identity/index.js';
import { SIMNET_BILLING, startBillingHarness, type BillingHarness } from '../../test/support/billing-harness.js';
import { runCli, CLI_TIMEOUT_MS } from '../../test/support/cli.js';

const ROOT = join(import.meta.dirname, '..', '..');
const PRICE = 49_000_000n;
const DAY = 86_400_000;

function runCrashingPass(env: Record<string, string>): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'run-ts.js'), join(ROOT, 'test', 'support', 'billing-crash-child.ts')], {
      cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'silent', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve({ code, signal, stderr }));
  });
}

/**
 * Exactly one charge per period, whatever crashes: a billing process is SIGKILLed at each step
 * of a renewal charge, then `suigw billing` (the command the OnchainPlan CronJob runs) runs
 * again; the chain shows one charge for the period and the database agrees.
 */
describe('billing crash test: SIGKILL at every step of a charge, then suigw billing again', () => {
  let h: BillingHarness;
  // The first charges a month ago, so that the renewals are due now on the wall clock the processes read.
  const firstChargeAt = Date.now() - 31 * DAY;
  const POINTS = ['sign:before', 'sign:after', 'submit:before', 'submit:after'] as const;
  const plans = new Map<string, { organizationId: string; planId: string; allowanceId: string }>();
  beforeAll(async () => {
    h = await startBillingHarness({ seed: 'billing-crash', start: firstChargeAt });
    // Every plan takes its first charge a month ago, before the chain's clock moves to now.
    // One funder each (USDC coins, no address balance at genesis): each plan's prefund is its own.
    const funders = ['grace', 'ivan', 'olivia', 'rupert'];
    for (const [index, point] of POINTS.entries()) plans.set(point, await planOnChain(`Crash ${point}`, funders[index]!));
    h.simnet.advanceClockTo(Date.now());
  });
  afterAll(async () => h.close());

  function env(organizationId: string): Record<string, string> {
    return {
      DATABASE_URL: h.db.url,
      SUIGW_DATA_DIR: join(tmpdir(), 'suigw-billing-crash'),
      SUI_TESTNET_GRPC_URL: h.simnet.grpcUrl, SUI_TESTNET_GRAPHQL_URL: h.simnet.graphqlUrl,
      SUI_MAINNET_GRPC_URL: h.simnet.grpcUrl, SUI_MAINNET_GRAPHQL_URL: h.simnet.graphqlUrl,
      SUIGW_BILLING_NETWORKS: JSON.stringify({ testnet: SIMNET_BILLING }),
      SUIGW_BILLING_SPONSOR_KEY: h.account('deployer').keypair.getSecretKey(),
      SUIGW_BILLING_ORGANIZATION: organizationId,
      SUIGW_BILLING_OUTBOX: join(tmpdir(), 'suigw-billing-crash', 'outbox.jsonl'),
    };
  }

  async function planOnChain(name: string, funderLabel: string) {
    const { organization } = await createOrganization(h.db.database.db, h.clock, { name, tier: 'free', projects: [{ name: 'T', network: 'testnet' }] });
    const funder = h.account(funderLabel);
    const prepared = await h.billing.service.prepare(organization.id, { network: 'testnet', tier: 'team', interval: 'month', funderAddress: funder.address, prefundPeriods: 2 });
    const bytes = fromBase64(prepared.txBytes);
    const result = await h.sui.core.executeTransaction({ transaction: bytes, signatures: [(await funder.keypair.signTransaction(bytes)).signature], include: { objectTypes: true } });
    h.simnet.seal();
    const allowanceId = Object.entries(result.Transaction!.objectTypes!).find(([, type]) => type.includes('::allowance::Allowance<'))![0];
    const view = await h.billing.service.activate(organization.id, { network: 'testnet', tier: 'team', interval: 'month', allowanceId });
    expect(view.state).toBe('active');
    return { organizationId: organization.id, planId: view.id, allowanceId };
  }

  const charges = (planId: string) => h.db.database.db.selectFrom('billing_charges').select(['kind', 'status', 'digest']).where('plan_id', '=', planId).where('kind', '=', 'renewal').execute();

  it.each([
    ['sign:before', ['pending']],
    ['sign:after', ['pending']],
    ['submit:before', ['signed']],
    ['submit:after', ['signed']],
  ] as const)('killed at %s: one renewal on chain after the next run, and the database agrees', async (point, leftBehind) => {
    const { organizationId, planId, allowanceId } = plans.get(point)!;
    expect(h.simnet.ledger.getAllowance(allowanceId)!.lifetimeSpent).toBe(PRICE);

    const crashed = await runCrashingPass({ ...env(organizationId), CRASH_AT: point });
    expect({ signal: crashed.signal, stderr: crashed.stderr }).toEqual({ signal: 'SIGKILL', stderr: '' });
    expect((await charges(planId)).map((charge) => charge.status)).toEqual(leftBehind);
    // Only a process killed after the chain executed the charge has spent anything yet.
    expect(h.simnet.ledger.getAllowance(allowanceId)!.lifetimeSpent).toBe(point === 'submit:after' ? 2n * PRICE : PRICE);

    const rerun = await runCli(['billing'], env(organizationId));
    expect({ code: rerun.code, stderr: rerun.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(rerun.stdout.trim().split('\n').at(-1)!)).toMatchObject({ charged: 1, declined: 0, unavailable: 0 });

    expect(h.simnet.ledger.getAllowance(allowanceId)!.lifetimeSpent).toBe(2n * PRICE);
    const rows = await charges(planId);
    expect(rows.filter((row) => row.status === 'succeeded')).toHaveLength(1);
    expect(rows.filter((row) => row.status === 'pending' || row.status === 'signed')).toEqual([]);
    const digest = rows.find((row) => row.status === 'succeeded')!.digest!;
    expect((await h.sui.core.getTransaction({ digest, include: { effects: true } })).Transaction?.status.success).toBe(true);
    const plan = await h.db.database.db.selectFrom('onchain_plans').select(['state', 'periods_paid']).where('id', '=', planId).executeTakeFirstOrThrow();
    expect(plan).toEqual({ state: 'active', periods_paid: 2 });

    // And once more: nothing is due, nothing is charged.
    const again = await runCli(['billing'], env(organizationId));
    expect(JSON.parse(again.stdout.trim().split('\n').at(-1)!)).toMatchObject({ charged: 0 });
    expect(h.simnet.ledger.getAllowance(allowanceId)!.lifetimeSpent).toBe(2n * PRICE);
  }, 4 * CLI_TIMEOUT_MS);
});
