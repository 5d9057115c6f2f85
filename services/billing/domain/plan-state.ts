/**
 * The on-chain plan's state machine, exactly as the spec's "On-chain plan states" table, one row
 * per transition with who triggers it, when and why. Rows the spec leaves open ("not shown") are
 * marked `ours` and explained in docs/billing.md.
 */
export const PLAN_STATES = ['awaiting_first_charge', 'active', 'past_due', 'cancel_pending', 'ended'] as const;
export type PlanState = (typeof PLAN_STATES)[number];

export const PLAN_TRIGGERS = [
  'activate',
  'charge_succeeded',
  'charge_failed',
  'final_charge_failed',
  'cancel',
  'period_ended',
  'allowance_revoked',
  'resume',
  'resume_unpaid',
  'resume_unstarted',
  'tier_changed',
] as const;
export type PlanTrigger = (typeof PLAN_TRIGGERS)[number];

/** Who causes a transition: the organization through the API, or the billing pass. */
export type Actor = 'owner' | 'billing';

export interface TransitionRow {
  readonly from: PlanState | null;
  readonly trigger: PlanTrigger;
  readonly to: PlanState;
  readonly actor: Actor;
  readonly when: string;
  readonly why: string;
  /** The spec does not say; our choice (docs/billing.md, State machine). */
  readonly ours?: true;
}

const row = (from: PlanState | null, trigger: PlanTrigger, to: PlanState, actor: Actor, when: string, why: string, ours?: true): TransitionRow =>
  Object.freeze(ours ? { from, trigger, to, actor, when, why, ours } : { from, trigger, to, actor, when, why });

export const TRANSITIONS: readonly TransitionRow[] = Object.freeze([
  row(null, 'activate', 'awaiting_first_charge', 'owner', 'POST /v1/billing/onchain/activate', 'allowance verified on chain; the first charge follows within about a minute'),
  row('awaiting_first_charge', 'charge_succeeded', 'active', 'billing', 'first charge', 'the first period is paid'),
  row('awaiting_first_charge', 'charge_failed', 'ended', 'billing', 'first charge', 'nothing was ever paid, so there is no access to continue', true),
  row('active', 'charge_succeeded', 'active', 'billing', 'renewal at period end', 'the next period is paid'),
  row('active', 'charge_failed', 'past_due', 'billing', 'renewal at period end', 'balance below price, allowance revoked or expired; retried daily for 7 days, owner emailed on attempts 1, 3, 5, 7'),
  row('past_due', 'charge_failed', 'past_due', 'billing', 'daily retry, attempts 2 to 6', 'still failing; access continues'),
  row('past_due', 'final_charge_failed', 'ended', 'billing', '7th failed attempt', 'organization returns to Free; webhooks and streams above Free limits pause'),
  row('past_due', 'charge_succeeded', 'active', 'billing', 'daily retry', 'the period is paid after all', true),
  row('active', 'cancel', 'cancel_pending', 'owner', 'POST /v1/billing/onchain/cancel', 'access until period end'),
  row('past_due', 'cancel', 'cancel_pending', 'owner', 'POST /v1/billing/onchain/cancel', 'no more retries; access until period end', true),
  row('cancel_pending', 'period_ended', 'ended', 'billing', 'period end', 'cancelled plan runs out'),
  row('awaiting_first_charge', 'allowance_revoked', 'cancel_pending', 'billing', 'allowance found revoked on chain', 'treated as cancel at period end'),
  row('active', 'allowance_revoked', 'cancel_pending', 'billing', 'allowance found revoked on chain', 'treated as cancel at period end'),
  row('past_due', 'allowance_revoked', 'cancel_pending', 'billing', 'allowance found revoked on chain', 'treated as cancel at period end'),
  row('cancel_pending', 'resume', 'active', 'owner', 'activate with the same tier and interval', 'Billing rule 7: setting up the same plan again resumes it; the paid period continues', true),
  row('cancel_pending', 'resume_unpaid', 'past_due', 'owner', 'activate with the same tier and interval, of a plan cancelled while its period was unpaid', 'Billing rule 7 resumes it, but the period is still owed: the daily retries go on where they stopped', true),
  row('cancel_pending', 'resume_unstarted', 'awaiting_first_charge', 'owner', 'activate with the same tier and interval, of a plan cancelled before its first charge was taken (its allowance found revoked)', 'Billing rule 7 resumes it, but nothing was ever paid: the first charge is taken at once, as at activation', true),
  row('active', 'tier_changed', 'active', 'owner', 'POST /v1/billing/onchain/change, or the renewal that applies a downgrade', 'the plan changes, the state does not'),
  row('past_due', 'tier_changed', 'active', 'owner', 'POST /v1/billing/onchain/change with when: now, its charge paid', 'the upgrade paid a new period from today (rule 6): nothing is owed any more', true),
]);

export class InvalidTransition extends Error {
  constructor(readonly from: PlanState | null, readonly trigger: PlanTrigger) {
    super(`no transition from ${from ?? '(none)'} on ${trigger}`);
    this.name = 'InvalidTransition';
  }
}

/** The row that applies, or InvalidTransition: a state never changes outside the table. */
export function transition(from: PlanState | null, trigger: PlanTrigger): TransitionRow {
  const found = TRANSITIONS.find((candidate) => candidate.from === from && candidate.trigger === trigger);
  if (!found) throw new InvalidTransition(from, trigger);
  return found;
}

export function canTransition(from: PlanState | null, trigger: PlanTrigger): boolean {
  return TRANSITIONS.some((candidate) => candidate.from === from && candidate.trigger === trigger);
}

/** States in which the paid plan is in force (metering/plans.ts gives the organization the plan's limits). */
export const PAID_STATES: readonly PlanState[] = ['awaiting_first_charge', 'active', 'past_due', 'cancel_pending'];
