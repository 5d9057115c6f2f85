import type { Interval } from './prices.js';

const DAY_MS = 86_400_000;

/** Days in a month of a year (month 0-11), UTC. */
function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
}

/**
 * The `n`th charge date after the first charge (n = 0 is the first charge itself). Spec, Billing
 * rule 3: monthly plans charge on the same day of the month as the first charge, on the last day
 * of months too short for it (Jan 31 → Feb 28 or 29 → Mar 31); annual plans on the anniversary
 * (Feb 29 → Feb 28 in common years). Always counted from the first charge, never from the last,
 * so a short month does not drag later charges to the 28th.
 */
export function chargeDate(firstChargeAt: number, interval: Interval, n: number): number {
  const anchor = new Date(firstChargeAt);
  const months = anchor.getUTCMonth() + n * (interval === 'year' ? 12 : 1);
  const year = anchor.getUTCFullYear() + Math.floor(months / 12);
  const month = ((months % 12) + 12) % 12;
  const day = Math.min(anchor.getUTCDate(), daysInMonth(year, month));
  return Date.UTC(year, month, day, anchor.getUTCHours(), anchor.getUTCMinutes(), anchor.getUTCSeconds(), anchor.getUTCMilliseconds());
}

/** Seven days before each renewal the funder's balance is checked (Billing rule 3). */
export const REMINDER_LEAD_MS = 7 * DAY_MS;

/** A failed charge is retried once a day; the 7th failure ends the plan (spec: plan transitions). */
export const RETRY_INTERVAL_MS = DAY_MS;
export const MAX_FAILED_ATTEMPTS = 7;
/** Failed attempts whose email goes to the owner (spec: "emailed on attempts 1, 3, 5, 7"). */
export const EMAILED_ATTEMPTS: readonly number[] = [1, 3, 5, 7];

/** A failure of ours (upstream down) is retried hourly, with no email and no state change. */
export const SERVICE_RETRY_INTERVAL_MS = 3_600_000;

export { DAY_MS };
