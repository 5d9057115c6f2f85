import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../core/index.js';
import type { ChargeOrder } from './charger.js';
import type { DatabaseSchema } from '../db/index.js';
import { formatUsdc } from './domain/prices.js';
import type { Mailer } from './mail/index.js';
import { billingId, type OnchainPlan } from './plan-store.js';

type EmailKind = 'renewal_reminder' | 'charge_failed';

/**
 * Queues an email to the plan's owner inside the transaction of its cause, once per
 * idempotency key (a retried pass never emails twice). No address on the plan: nothing queued.
 */
export async function queueEmail(
  trx: Transaction<DatabaseSchema>,
  clock: Clock,
  plan: OnchainPlan,
  kind: EmailKind,
  idempotencyKey: string,
  content: { subject: string; text: string },
): Promise<void> {
  if (!plan.notifyEmail) return;
  await trx.insertInto('billing_emails').values({
    id: billingId('mail'), plan_id: plan.id, kind, idempotency_key: idempotencyKey, recipient: plan.notifyEmail,
    subject: content.subject, body: content.text, created_at: new Date(clock.now()),
  }).onConflict((oc) => oc.column('idempotency_key').doNothing()).execute();
}

/** `tier` and `price`: what the renewal charges (a pending change's, when there is one). */
export function reminderEmail(plan: OnchainPlan, tier: string, renewalAt: number, balance: bigint, price: bigint): { subject: string; text: string } {
  return {
    subject: `Your ${tier} plan renews on ${new Date(renewalAt).toISOString().slice(0, 10)}: add USDC`,
    text: [
      `The ${tier} plan of organization ${plan.organizationId} renews on ${new Date(renewalAt).toISOString().slice(0, 10)} for ${formatUsdc(price)} USDC.`,
      `The USDC address balance of ${plan.funder} on ${plan.network} holds ${formatUsdc(balance)} USDC, less than the price.`,
      'Deposit USDC into that address balance before the renewal (allowances take only from the address balance, not from coin objects).',
    ].join('\n'),
  };
}

/**
 * `charge` is the one that failed: at a renewal that applies a pending change, its tier, price
 * and allowance are the pending ones, not the plan's (what the owner must fund).
 */
export function failedChargeEmail(plan: OnchainPlan, charge: Pick<ChargeOrder, 'tier' | 'amount' | 'allowanceId'>, attempt: number, reason: string, final: boolean): { subject: string; text: string } {
  return {
    subject: final ? `Your ${plan.tier} plan has ended: the charge failed 7 times` : `Charge for your ${charge.tier} plan failed (attempt ${attempt} of 7)`,
    text: [
      `The charge of ${formatUsdc(charge.amount)} USDC for the ${charge.tier} plan of organization ${plan.organizationId} failed: ${reason}.`,
      final
        ? 'The organization is back on the Free plan; webhooks and streams above the Free limits are paused. Set up a plan again to resume.'
        : `We try again once a day, 7 times in all. Check the allowance ${charge.allowanceId} and the USDC address balance of ${plan.funder}.`,
    ].join('\n'),
  };
}

/** Sends queued emails; a failed send stays queued for the next pass. Returns how many were sent. */
export async function sendQueuedEmails(db: Kysely<DatabaseSchema>, clock: Clock, mailer: Mailer): Promise<{ sent: number; failed: number }> {
  const queued = await db.selectFrom('billing_emails').select(['id', 'recipient', 'subject', 'body']).where('sent_at', 'is', null).orderBy('created_at').orderBy('id').execute();
  let sent = 0;
  let failed = 0;
  for (const email of queued) {
    try {
      await mailer.send({ to: email.recipient, subject: email.subject, text: email.body });
    } catch {
      failed++;
      continue;
    }
    await db.updateTable('billing_emails').set({ sent_at: new Date(clock.now()) }).where('id', '=', email.id).execute();
    sent++;
  }
  return { sent, failed };
}
