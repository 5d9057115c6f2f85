import { chargeDate } from './periods.js';

/** What an allowance has spent in its current window, as the chain keeps it. */
export interface AllowanceWindow {
  /** Most it takes per window (0: no per-window limit). */
  readonly periodLimit: bigint;
  /** 1: calendar months (UTC); 12: 12-month windows on a grid anchored on the first spend. */
  readonly windowMonths: number;
  /** The 12-month grid's anchor, the first spend's chain time (0 before any spend). */
  readonly windowStartMs: number;
  /** The window of the last spend, as year × 100 + month (1-12) of the window's start. */
  readonly month: number;
  readonly periodSpent: bigint;
}

/**
 * Margin after a window opens before a charge is sent: the chain's clock (checkpoint time) runs a
 * few seconds behind ours, and a charge it sees in the old window is refused.
 */
export const WINDOW_OPENING_MARGIN_MS = 60_000;

const yearMonth = (ms: number) => new Date(ms).getUTCFullYear() * 100 + new Date(ms).getUTCMonth() + 1;

/** The start of the window holding `nowMs` and of the one after it. */
function windowAround(window: AllowanceWindow, nowMs: number): { start: number; next: number } {
  if (window.windowMonths === 12) {
    let years = 0;
    while (chargeDate(window.windowStartMs, 'year', years + 1) <= nowMs) years++;
    return { start: chargeDate(window.windowStartMs, 'year', years), next: chargeDate(window.windowStartMs, 'year', years + 1) };
  }
  const now = new Date(nowMs);
  return { start: Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1), next: Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) };
}

/**
 * When the allowance can take `amount`: `nowMs` when it can now; the next window's opening (plus
 * the margin) when this window's limit is used up but a fresh window covers the amount; null when
 * no window ever will (the limit is below the amount: a real decline).
 *
 * Why: a plan's charge dates count from our clock at activation, the allowance's annual windows
 * from the chain's time of the first spend, seconds later. A renewal due on the anniversary would
 * land those seconds inside the old window and be refused; it waits for the window instead of
 * failing a customer who did nothing wrong. The same holds for a monthly plan activated in the
 * last seconds of a month whose first charge lands in the next.
 */
export function allowanceOpensAt(window: AllowanceWindow, amount: bigint, nowMs: number): number | null {
  if (window.periodLimit === 0n) return nowMs;
  if (amount > window.periodLimit) return null;
  if (window.windowMonths === 12 && window.windowStartMs === 0) return nowMs;
  const { start, next } = windowAround(window, nowMs);
  const spent = yearMonth(start) === window.month ? window.periodSpent : 0n;
  return spent + amount <= window.periodLimit ? nowMs : next + WINDOW_OPENING_MARGIN_MS;
}
