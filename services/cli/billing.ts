import { closeUpstreamSet, upstreamSetFromConfig } from '../upstream/index.js';
import { flushLogger } from '../core/index.js';
import { billingParts } from './billing-parts.js';
import { openRuntime, readConfig } from './runtime.js';

/**
 * How long `suigw billing` waits for another billing process's charging lock before exit 4: every
 * OnchainPlan's CronJob runs at :07, so with several plans their passes queue for the one lock.
 * Well under the Job's 900 s deadline (operator/translate/workloads.ts), leaving the pass its time.
 */
export const BILLING_LOCK_WAIT_MS = 300_000;

/**
 * `suigw billing`: one pass over due charges, retries, reminders and emails, then exit (what the
 * Helm chart's billing CronJob runs over every organization, and an OnchainPlan's CronJob over its
 * own, SUIGW_BILLING_ORGANIZATION). Exit codes: 0 the pass ran (declined charges are the customer's and
 * count as done); 3 some work failed on our side (node down, SMTP down): nothing was lost, the
 * next pass retries it; 4 another billing process held the charging lock
 * throughout BILLING_LOCK_WAIT_MS (nothing done); 2 bad
 * configuration; 1 anything unexpected (a plan whose processing threw is logged with its id and
 * skipped, the pass goes on with the others, and exits 1 at the end).
 */
export async function runBilling(): Promise<void> {
  const config = readConfig();
  const runtime = await openRuntime(config, { migrate: config.databaseUrl === undefined });
  const upstreams = upstreamSetFromConfig(config, runtime.logger);
  let code = 0;
  try {
    const { pass, lock, mailer } = billingParts({ ...runtime, upstreams });
    // Every OnchainPlan's CronJob starts at the same minute, and one process charges at a time: a
    // pass waits its turn (each holds the lock for seconds) instead of doing nothing (exit 4 at once).
    const report = await lock.runWithin(BILLING_LOCK_WAIT_MS, () => pass.run({ organizationId: config.billing.organizationId }), {
      onBusy: () => runtime.logger.info('another billing process holds the charging lock; waiting for it'),
    });
    await mailer.close?.();
    if (report === undefined) {
      runtime.logger.warn(`another billing process held the charging lock for ${BILLING_LOCK_WAIT_MS / 1000} s; nothing done`);
      code = 4;
    } else {
      runtime.logger.info({ report, organizationId: config.billing.organizationId }, 'billing pass done');
      console.log(JSON.stringify(report));
      if (report.unavailable > 0 || report.emailsFailed > 0) code = 3;
      // A plan that threw is unexpected: the rest of the pass ran, but someone must look.
      if (report.failed > 0) code = 1;
    }
  } finally {
    await closeUpstreamSet(upstreams);
    await runtime.database.close();
    flushLogger(runtime.logger);
  }
  process.exit(code);
}
