import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fromBase64 } from '@mysten/sui/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../identity/index.js';
import { chargeDate } from './domain/periods.js';
import { proratedUpgradeCharge } from './domain/proration.js';
import { SIMNET_BILLING, startBillingHarness, type BillingHarness } from '../../test/support/billing-harness.js';
import { runCli, CLI_TIMEOUT_MS } from '../../test/support/cli.js';

const ROOT = join(import.meta.dirname, '..', '..');
const PRICE = 49_000_000n;
const GROWTH_PRICE = 199_000_000n;
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
 * of a renewal charge (or a process answering an upgrade `now`, before or after signing its charge), then
 * `suigw billing` (the command the OnchainPlan CronJob runs) runs again; the chain shows one
 * charge for the period and the database agrees.
 */
describe('billing crash test: SIGKILL at every step of a charge, then suigw billing again', () => {
  let h: BillingHarness;
  // The first charges a month ago, so that the renewals are due now on the wall clock the processes read.
  const firstChargeAt = Date.now() - 31 * DAY;
  const POINTS = ['sign:before', 'sign:after', 'submit:before', 'submit:after'] as const;
  // Where an upgrade's process dies, and how long before now the plan took its first charge: a
  // month (its renewal is due when the next pass finds the upgrade), or 10 days (nothing is due).
  const UPGRADES = [['submit:before', 31], ['submit:after', 31], ['submit:after', 10]] as const;
  const plans = new Map<string, { organizationId: string; planId: string; allowanceId: string }>();
  const upgrades = new Map<string, { organizationId: string; planId: string; allowanceId: string; growthAllowanceId: string }>();
  let unsent: { organizationId: string; planId: string; allowanceId: string; growthAllowanceId: string };
  beforeAll(async () => {
    h = await startBillingHarness({ seed: 'billing-crash', start: firstChargeAt });
    // Every plan takes its first charge a month ago (one of the upgrades' 10 days ago), before the
    // chain's clock moves to now. One funder each (USDC coins; erin and mallory also have an address
    // balance at genesis, which changes nothing here): each plan's prefund is its own.
    const funders = ['grace', 'ivan', 'olivia', 'rupert'];
    for (const [index, point] of POINTS.entries()) plans.set(point, await planOnChain(`Crash ${point}`, funders[index]!));
    for (const [index, [point, daysAgo]] of UPGRADES.entries()) {
      const funder = ['walter', 'yvonne', 'erin'][index]!;
      h.clock.set(Math.max(h.clock.now(), Date.now() - daysAgo * DAY));
      h.simnet.advanceClockTo(h.clock.now());
      const plan = await planOnChain(`Crash upgrade ${point} ${daysAgo}`, funder);
      upgrades.set(`${point} ${daysAgo}`, { ...plan, growthAllowanceId: await allowanceOnChain(plan.organizationId, funder, 'growth') });
    }
    // An upgrade killed before signing, on a plan whose renewal is three weeks away.
    h.clock.set(Math.max(h.clock.now(), Date.now() - 10 * DAY));
    h.simnet.advanceClockTo(h.clock.now());
    const plan = await planOnChain('Crash upgrade sign:before', 'mallory');
    unsent = { ...plan, growthAllowanceId: await allowanceOnChain(plan.organizationId, 'mallory', 'growth') };
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
    const allowanceId = await allowanceOnChain(organization.id, funderLabel, 'team');
    const view = await h.billing.service.activate(organization.id, { network: 'testnet', tier: 'team', interval: 'month', allowanceId });
    expect(view.state).toBe('active');
    return { organizationId: organization.id, planId: view.id, allowanceId };
  }

  /** prepare (two periods' prefund for a team plan, one for an upgrade) → the funder executes it → the allowance's id. */
  async function allowanceOnChain(organizationId: string, funderLabel: string, tier: 'team' | 'growth') {
    const funder = h.account(funderLabel);
    const prepared = await h.billing.service.prepare(organizationId, { network: 'testnet', tier, interval: 'month', funderAddress: funder.address, prefundPeriods: tier === 'team' ? 2 : 1 });
    const bytes = fromBase64(prepared.txBytes);
    const result = await h.sui.core.executeTransaction({ transaction: bytes, signatures: [(await funder.keypair.signTransaction(bytes)).signature], include: { objectTypes: true } });
    h.simnet.seal();
    return Object.entries(result.Transaction!.objectTypes!).find(([, type]) => type.includes('::allowance::Allowance<'))![0];
  }

  const charges = (planId: string) => h.db.database.db.selectFrom('billing_charges').select(['id', 'kind', 'status', 'digest']).where('plan_id', '=', planId).where('kind', '=', 'renewal').execute();

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
    const left = await charges(planId);
    expect(left.map((charge) => charge.status)).toEqual(leftBehind);
    // Only a process killed after the chain executed the charge has spent anything yet.
    expect(h.simnet.ledger.getAllowance(allowanceId)!.lifetimeSpent).toBe(point === 'submit:after' ? 2n * PRICE : PRICE);

    const rerun = await runCli(['billing'], env(organizationId));
    expect({ code: rerun.code, stderr: rerun.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(rerun.stdout.trim().split('\n').at(-1)!)).toMatchObject({ charged: 1, declined: 0, unavailable: 0 });

    expect(h.simnet.ledger.getAllowance(allowanceId)!.lifetimeSpent).toBe(2n * PRICE);
    const rows = await charges(planId);
    // The row left behind is the one settled: a `pending` one of the due renewal goes on (the
    // pass's recovery step abandons only another order's), not abandoned and recorded again.
    expect(rows.map((row) => [row.id, row.status])).toEqual([[left[0]!.id, 'succeeded']]);
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

  /**
   * An upgrade `now` whose process dies once its charge is signed (sent or not) leaves the charge in
   * flight; the next `suigw billing` settles it and writes it to the plan. Before, only the plan's
   * next renewal found it: it marked the upgrade paid (the chain executed it, or executed it then),
   * then charged the renewal at the old tier: the owner paid for growth and stayed on team, with
   * nothing to say so; and until that renewal, change and cancel were 409 CHARGE_IN_PROGRESS.
   */
  describe('SIGKILL during an upgrade `now`, then suigw billing', () => {
    it.each(UPGRADES)('killed at %s, first charge %i days ago: the paid upgrade is applied (growth, a period from the upgrade), no renewal charged', async (point, daysAgo) => {
      const { organizationId, planId, allowanceId, growthAllowanceId } = upgrades.get(`${point} ${daysAgo}`)!;
      const crashed = await runCrashingPass({ ...env(organizationId), CRASH_AT: point, CRASH_CHANGE: JSON.stringify({ organizationId, tier: 'growth', allowanceId: growthAllowanceId }) });
      expect({ signal: crashed.signal, stderr: crashed.stderr }).toEqual({ signal: 'SIGKILL', stderr: '' });
      const left = await h.db.database.db.selectFrom('billing_charges').select(['id', 'kind', 'status', 'amount_micro_usdc', 'period_key']).where('plan_id', '=', planId).where('kind', '<>', 'first').execute();
      expect(left.map((charge) => [charge.kind, charge.status])).toEqual([['upgrade', 'signed']]);
      const upgrade = left[0]!;
      const upgradedAt = upgrade.period_key.getTime();
      // Rule 6: growth's price less the unused part of the team period (none left of one that ran out).
      const first = await h.db.database.db.selectFrom('onchain_plans').select('anchor_at').where('id', '=', planId).executeTakeFirstOrThrow();
      const periodStart = first.anchor_at!.getTime();
      const charged = proratedUpgradeCharge({ newPrice: GROWTH_PRICE, oldPrice: PRICE, periodStart, periodEnd: chargeDate(periodStart, 'month', 1), now: upgradedAt }).charge;
      expect(BigInt(upgrade.amount_micro_usdc)).toBe(charged);
      expect(charged === GROWTH_PRICE).toBe(daysAgo === 31);
      expect(h.simnet.ledger.getAllowance(growthAllowanceId)!.lifetimeSpent).toBe(point === 'submit:after' ? charged : 0n);

      const rerun = await runCli(['billing'], env(organizationId));
      expect({ code: rerun.code, stderr: rerun.stderr }).toEqual({ code: 0, stderr: '' });
      expect(JSON.parse(rerun.stdout.trim().split('\n').at(-1)!)).toMatchObject({ charged: 1, declined: 0, unavailable: 0, failed: 0 });

      expect(h.simnet.ledger.getAllowance(growthAllowanceId)!.lifetimeSpent).toBe(charged);
      expect(h.simnet.ledger.getAllowance(allowanceId)!.lifetimeSpent).toBe(PRICE);
      const rows = await h.db.database.db.selectFrom('billing_charges').select(['id', 'kind', 'status', 'digest']).where('plan_id', '=', planId).where('kind', '<>', 'first').execute();
      expect(rows).toEqual([{ id: upgrade.id, kind: 'upgrade', status: 'succeeded', digest: expect.any(String) }]);
      const { digest } = rows[0]!;
      expect((await h.sui.core.getTransaction({ digest: digest!, include: { effects: true } })).Transaction?.status.success).toBe(true);
      const plan = await h.db.database.db.selectFrom('onchain_plans').select(['state', 'tier', 'price_micro_usdc', 'allowance_id', 'pending_tier', 'periods_paid', 'anchor_at', 'period_end']).where('id', '=', planId).executeTakeFirstOrThrow();
      expect(plan).toEqual({
        state: 'active', tier: 'growth', price_micro_usdc: GROWTH_PRICE.toString(), allowance_id: growthAllowanceId, pending_tier: null,
        periods_paid: 1, anchor_at: new Date(upgradedAt), period_end: new Date(chargeDate(upgradedAt, 'month', 1)),
      });
      const organization = await h.db.database.db.selectFrom('organizations').select(['subscription_plan', 'subscription_status']).where('id', '=', organizationId).executeTakeFirstOrThrow();
      expect(organization).toEqual({ subscription_plan: 'growth', subscription_status: 'active' });
      const transition = await h.db.database.db.selectFrom('plan_transitions').select(['trigger', 'actor', 'reason']).where('plan_id', '=', planId).orderBy('at', 'desc').executeTakeFirstOrThrow();
      expect(transition).toEqual({
        trigger: 'tier_changed', actor: 'owner',
        reason: `upgraded to growth now (charged ${charged} micro-USDC, digest ${digest}); written by the billing pass, the change's process having stopped after signing`,
      });

      // And once more: the upgrade's period runs, nothing is due, nothing is charged.
      const again = await runCli(['billing'], env(organizationId));
      expect(JSON.parse(again.stdout.trim().split('\n').at(-1)!)).toMatchObject({ charged: 0, failed: 0 });
      expect(h.simnet.ledger.getAllowance(growthAllowanceId)!.lifetimeSpent).toBe(charged);
      expect(h.simnet.ledger.getAllowance(allowanceId)!.lifetimeSpent).toBe(PRICE);
    }, 4 * CLI_TIMEOUT_MS);

    /**
     * Killed after recording its charge, before signing it: never signed, so never sent, so nothing
     * was charged. Before, only a charge of the plan (its renewal, here three weeks away) abandoned
     * the row, and until then change and cancel were 409 CHARGE_IN_PROGRESS.
     */
    it('killed at sign:before, the renewal weeks away: the next suigw billing abandons the charge, nothing is charged, and the owner can upgrade again', async () => {
      const { organizationId, planId, allowanceId, growthAllowanceId } = unsent;
      const crashed = await runCrashingPass({ ...env(organizationId), CRASH_AT: 'sign:before', CRASH_CHANGE: JSON.stringify({ organizationId, tier: 'growth', allowanceId: growthAllowanceId }) });
      expect({ signal: crashed.signal, stderr: crashed.stderr }).toEqual({ signal: 'SIGKILL', stderr: '' });
      const upgradeRows = () => h.db.database.db.selectFrom('billing_charges').select(['id', 'status']).where('plan_id', '=', planId).where('kind', '<>', 'first').orderBy('created_at').execute();
      const [left] = await upgradeRows();
      expect(await upgradeRows()).toEqual([{ id: left!.id, status: 'pending' }]);
      await expect(h.billing.service.cancel(organizationId)).rejects.toMatchObject({ status: 409, code: 'CHARGE_IN_PROGRESS' });
      const planRow = () => h.db.database.db.selectFrom('onchain_plans').selectAll().where('id', '=', planId).executeTakeFirstOrThrow();
      const before = await planRow();

      const rerun = await runCli(['billing'], env(organizationId));
      expect({ code: rerun.code, stderr: rerun.stderr }).toEqual({ code: 0, stderr: '' });
      expect(JSON.parse(rerun.stdout.trim().split('\n').at(-1)!)).toMatchObject({ charged: 0, declined: 0, unavailable: 0, failed: 0 });
      expect(await upgradeRows()).toEqual([{ id: left!.id, status: 'abandoned' }]);
      expect(await planRow()).toEqual(before);
      expect(h.simnet.ledger.getAllowance(growthAllowanceId)!.lifetimeSpent).toBe(0n);
      expect(h.simnet.ledger.getAllowance(allowanceId)!.lifetimeSpent).toBe(PRICE);

      // The owner's upgrade, asked again, is charged once and applied.
      h.clock.set(Date.now());
      const view = await h.billing.service.change(organizationId, { tier: 'growth', when: 'now', allowanceId: growthAllowanceId });
      expect(view).toMatchObject({ state: 'active', plan: { tier: 'growth' }, pendingChange: null });
      const rows = await h.db.database.db.selectFrom('billing_charges').select(['status', 'amount_micro_usdc']).where('plan_id', '=', planId).where('kind', '=', 'upgrade').orderBy('created_at').execute();
      expect(rows.map((row) => row.status)).toEqual(['abandoned', 'succeeded']);
      expect(h.simnet.ledger.getAllowance(growthAllowanceId)!.lifetimeSpent).toBe(BigInt(rows[1]!.amount_micro_usdc));
    }, 4 * CLI_TIMEOUT_MS);
  });
});
