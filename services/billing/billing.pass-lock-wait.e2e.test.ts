import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIMNET_BILLING, holdChargingLock, startBillingHarness, type BillingHarness } from '../../test/support/billing-harness.js';
import { CLI_TIMEOUT_MS } from '../../test/support/cli.js';

const DAY = 86_400_000;
const BIN = join(import.meta.dirname, '..', '..', 'bin', 'suigw.js');

/**
 * Every OnchainPlan's CronJob runs `suigw billing` at :07 for its organization, and one process
 * charges at a time (the charging lock). A pass that found the lock held exited 4 at once, nothing
 * done, so with two plans or more all but one organization's pass did nothing that hour (its pod
 * restarted a few times, then the Job failed), and the next hour the same race: renewals, retries
 * and reminders late by hours. It now waits its turn.
 */
describe('suigw billing while another organization’s pass holds the charging lock', () => {
  let h: BillingHarness;
  beforeAll(async () => {
    h = await startBillingHarness({ seed: 'billing-pass-lock-wait', start: Date.now() - 31 * DAY });
    const { allowanceId } = await h.setUp({ funder: 'carol', tier: 'team', prefundPeriods: 2 });
    expect((await h.call('POST', '/v1/billing/onchain/activate', { network: 'testnet', tier: 'team', allowanceId })).body.data).toMatchObject({ state: 'active' });
    // A month later, by the wall clock `suigw billing` reads: the renewal is due.
    h.simnet.advanceClockTo(Date.now());
  });
  afterAll(async () => h?.close());

  it('waits for the lock, then runs its pass: exit 0, the renewal charged', async () => {
    const { release, held } = await holdChargingLock(h);
    const env = {
      ...process.env, LOG_LEVEL: 'info',
      DATABASE_URL: h.db.url, SUIGW_DATA_DIR: join(tmpdir(), 'suigw-billing-pass-lock-wait'),
      SUI_TESTNET_GRPC_URL: h.simnet.grpcUrl, SUI_TESTNET_GRAPHQL_URL: h.simnet.graphqlUrl,
      SUI_MAINNET_GRPC_URL: h.simnet.grpcUrl, SUI_MAINNET_GRAPHQL_URL: h.simnet.graphqlUrl,
      SUIGW_BILLING_NETWORKS: JSON.stringify({ testnet: SIMNET_BILLING }),
      SUIGW_BILLING_SPONSOR_KEY: h.account('deployer').keypair.getSecretKey(),
      SUIGW_BILLING_ORGANIZATION: h.organizationId,
    };
    const child = spawn(process.execPath, [BIN, 'billing'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    // The lock is released once the pass has found it held (said in its log), or when it exited.
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => {
      release();
      resolve(code);
    }));
    const onOutput = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('holds the charging lock')) release();
    };
    child.stdout.on('data', onOutput);
    child.stderr.on('data', onOutput);
    await held;
    const code = await exited;
    expect(code).toBe(0);
    const report = output.trim().split('\n').map((line) => line.trim()).filter((line) => line.startsWith('{"charged"')).at(-1);
    expect(JSON.parse(report!)).toMatchObject({ charged: 1, failed: 0 });
    expect((await h.db.database.db.selectFrom('billing_charges').select(['kind', 'status']).orderBy('created_at').execute()).map((row) => `${row.kind} ${row.status}`))
      .toEqual(['first succeeded', 'renewal succeeded']);
  }, CLI_TIMEOUT_MS);
});
