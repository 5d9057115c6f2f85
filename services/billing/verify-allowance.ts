import { ApiError } from '../core/index.js';
import type { BillingNetwork, OnchainAllowance, OnchainAllowanceCap } from './chain/index.js';
import { DAY_MS, RETRY_INTERVAL_MS, MAX_FAILED_ATTEMPTS } from './domain/periods.js';
import type { Interval } from './domain/prices.js';

/** What an allowance must be to pay a plan (spec: activate "verifies the allowance on chain"). */
export interface AllowanceExpectation {
  readonly settings: BillingNetwork;
  readonly spender: string;
  readonly organizationId: string;
  readonly price: bigint;
  readonly interval: Interval;
  readonly now: number;
  /** The plan's funder, when the allowance replaces another (upgrade, resume): one payer per plan. */
  readonly funder?: string;
}

/**
 * Checks in the spec's order (coin, spender, app, funder, organization name, limit, start,
 * expiry), each failure its own code. The limit must cover one period's price in the allowance's
 * window, and the allowance must outlive the next renewal and its 7 daily retries.
 */
export function verifyAllowance(allowance: OnchainAllowance | null, expected: AllowanceExpectation): OnchainAllowance {
  if (!allowance) throw new ApiError('ALLOWANCE_NOT_FOUND');
  const { settings } = expected;
  if (allowance.coinType !== settings.usdcType) throw new ApiError('ALLOWANCE_WRONG_COIN', { message: `The allowance is for ${allowance.coinType}; plans are paid in ${settings.usdcType}.` });
  if (allowance.spender !== expected.spender) throw new ApiError('ALLOWANCE_WRONG_SPENDER', { message: `The allowance's spender must be ${expected.spender}.` });
  if (allowance.app !== `${settings.packageId}::billing::BillingApp`) throw new ApiError('ALLOWANCE_WRONG_APP', { message: `The allowance must be issued by ${settings.packageId}::billing.` });
  if (allowance.funder === expected.spender || (expected.funder !== undefined && allowance.funder !== expected.funder)) {
    throw new ApiError('ALLOWANCE_WRONG_FUNDER', { message: expected.funder ? `The plan is paid by ${expected.funder}.` : 'The service cannot fund its own plan.' });
  }
  if (allowance.name !== expected.organizationId) throw new ApiError('ALLOWANCE_WRONG_ORGANIZATION', { message: `The allowance must be named ${expected.organizationId}.` });
  const window = expected.interval === 'year' ? 12 : 1;
  if (allowance.periodLimit < expected.price || allowance.windowMonths !== window) {
    throw new ApiError('ALLOWANCE_LIMIT_TOO_LOW', { message: `The allowance must allow at least ${expected.price} micro-USDC per ${expected.interval === 'year' ? '12 months' : 'calendar month'}.` });
  }
  if (allowance.startMs > expected.now) throw new ApiError('ALLOWANCE_NOT_STARTED');
  const periodMs = (expected.interval === 'year' ? 366 : 31) * DAY_MS;
  if (allowance.expirationMs !== null && allowance.expirationMs < expected.now + periodMs + MAX_FAILED_ATTEMPTS * RETRY_INTERVAL_MS) {
    throw new ApiError('ALLOWANCE_EXPIRES_TOO_SOON', { message: 'The allowance must last through the next renewal and its 7 daily retries.' });
  }
  return allowance;
}

/**
 * A cap id given at activation is shown as the allowance's (the funder revokes with it): it must be
 * an AllowanceCap of that allowance, of its coin, held by its funder (docs/billing.md).
 */
export function verifyAllowanceCap(cap: OnchainAllowanceCap | null, allowance: OnchainAllowance): OnchainAllowanceCap {
  if (!cap) throw new ApiError('ALLOWANCE_CAP_MISMATCH', { message: 'No AllowanceCap has that id.' });
  if (cap.allowanceId !== allowance.objectId || cap.coinType !== allowance.coinType) {
    throw new ApiError('ALLOWANCE_CAP_MISMATCH', { message: `That cap revokes allowance ${cap.allowanceId}, not ${allowance.objectId}.` });
  }
  if (cap.owner !== allowance.funder) throw new ApiError('ALLOWANCE_CAP_MISMATCH', { message: `The cap must be held by the funder ${allowance.funder}.` });
  return cap;
}
