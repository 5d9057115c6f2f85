import { normalizeStructTag } from '@mysten/sui/utils';
import type { AllowanceRecord } from '../ledger/index.js';
import { allowanceObjectState, monthOf } from '../ledger/allowance-state.js';
import { OBJECT_TYPES } from '../ledger/catalog.js';
import { MoveStructs } from '../ledger/move-values.js';
import { abort, argumentError } from './failure.js';
import type { CallContext, Handler, MoveCallInput } from './call-context.js';
import { F, argument, consume, pure, typeArgument, withdrawalArgument } from './call-context.js';
import type { WorkingObject } from './working-set.js';
import { decodeAddress, decodeString, decodeU64, type Value } from './values.js';
import { bcs } from '@mysten/sui/bcs';

/** Abort codes of simnet's allowance module (documented in the README). */
export const ALLOWANCE_ABORTS = { notSpender: 1n, expired: 2n, lifetimeCap: 3n, monthlyLimit: 4n, wrongFunder: 5n, appBound: 6n, notStarted: 7n, wrongCap: 8n, badWindow: 9n } as const;

const U64_MAX = 2n ** 64n - 1n;

/** The allowance argument `index` of a call and its record. */
export function allowanceArgument(call: MoveCallInput, index: number, ctx: CallContext, type: string): { object: WorkingObject; record: AllowanceRecord } {
  const value = argument(call, index, ctx);
  if (value.kind !== 'object') throw argumentError(ctx.command, index, 'expected an allowance');
  const object = ctx.set.get(value.id);
  const record = ctx.allowance(object.id);
  if (!record || record.coinType !== type) throw argumentError(ctx.command, index, `expected Allowance<Balance<${type}>>`);
  return { object, record };
}

/** `years` years after `anchorMs`, UTC; Feb 29 falls on Feb 28 in common years (never Mar 1). */
function yearsAfter(anchorMs: bigint, years: number): bigint {
  const anchor = new Date(Number(anchorMs));
  const year = anchor.getUTCFullYear() + years;
  const day = Math.min(anchor.getUTCDate(), new Date(Date.UTC(year, anchor.getUTCMonth() + 1, 0)).getUTCDate());
  return BigInt(Date.UTC(year, anchor.getUTCMonth(), day, anchor.getUTCHours(), anchor.getUTCMinutes(), anchor.getUTCSeconds(), anchor.getUTCMilliseconds()));
}

/** The start of the 12-month window holding `nowMs`, on the grid anchored on the first spend. */
function annualWindowStart(anchorMs: bigint, nowMs: bigint): bigint {
  let years = 0;
  while (yearsAfter(anchorMs, years + 1) <= nowMs) years++;
  return yearsAfter(anchorMs, years);
}

/**
 * Takes `withdrawal` from the funder's address balance under the allowance's rules: spender,
 * start, expiry, lifetime cap and the per-period limit (calendar month, or a 12-month window
 * anchored on the first spend). `app`: the app type vouching for the spend (app-bound allowances).
 */
export function spendUnderAllowance(
  call: MoveCallInput,
  ctx: CallContext,
  target: { object: WorkingObject; record: AllowanceRecord },
  withdrawal: Extract<Value, { kind: 'withdrawal' }>,
  withdrawalIndex: number,
  module: { packageId: string; name: string; fn: string },
  app?: string,
): bigint {
  const { object, record } = target;
  const fail = (code: bigint, why: string) => abort(ctx.command, module.packageId, module.name, module.fn, code, why);
  if (withdrawal.allowanceId !== object.id || withdrawal.owner !== record.funder) throw fail(ALLOWANCE_ABORTS.wrongFunder, 'withdrawal is not from this allowance');
  if (record.spender !== undefined && record.spender !== ctx.sender) throw fail(ALLOWANCE_ABORTS.notSpender, 'sender is not the spender');
  if (record.app !== undefined && record.app !== app) throw fail(ALLOWANCE_ABORTS.appBound, 'allowance is bound to an app');
  if (ctx.nowMs < record.startMs) throw fail(ALLOWANCE_ABORTS.notStarted, 'allowance not started');
  if (record.expirationTimestampMs !== undefined && ctx.nowMs >= record.expirationTimestampMs) throw fail(ALLOWANCE_ABORTS.expired, 'allowance expired');
  const amount = withdrawal.amount;
  if (record.lifetimeSpent + amount > record.lifetimeCap) throw fail(ALLOWANCE_ABORTS.lifetimeCap, 'lifetime cap exceeded');
  let windowStartMs = record.windowStartMs;
  let month = monthOf(ctx.nowMs);
  let sameWindow = month === record.month;
  if (record.windowMonths === 12) {
    // Windows of 12 months on a grid anchored on the first spend (windowStartMs), never re-anchored.
    if (windowStartMs === 0n) windowStartMs = ctx.nowMs;
    month = monthOf(annualWindowStart(windowStartMs, ctx.nowMs));
    sameWindow = record.windowStartMs > 0n && month === record.month;
  }
  const spent = (sameWindow ? record.monthSpent : 0n) + amount;
  if (record.monthlyLimit > 0n && spent > record.monthlyLimit) throw fail(ALLOWANCE_ABORTS.monthlyLimit, 'period limit exceeded');
  ctx.withdrawFromAddress(record.funder, withdrawal.coinType, amount);
  consume(call, withdrawalIndex, withdrawal);
  const updated: AllowanceRecord = { ...record, lifetimeSpent: record.lifetimeSpent + amount, month, monthSpent: spent, windowStartMs };
  ctx.updateAllowance(updated);
  Object.assign(object, allowanceObjectState(updated));
  return amount;
}

export const allowanceHandlers: Record<string, Handler> = {
  balance_spend: (call, ctx) => {
    const type = typeArgument(call, 0, ctx);
    const target = allowanceArgument(call, 0, ctx, type);
    const withdrawal = withdrawalArgument(call, 1, ctx, type);
    const amount = spendUnderAllowance(call, ctx, target, withdrawal, 1, { packageId: F, name: 'allowance', fn: 'balance_spend' });
    return [{ kind: 'balance', coinType: type, amount }];
  },

  /**
   * The funder proposes an allowance (name, spender, app, per-period limit, window, start,
   * expiry); only the app's module can issue it (billing::issue), so a proposal never spends.
   */
  propose: (call, ctx) => {
    const type = typeArgument(call, 0, ctx);
    const name = pure(call, 0, ctx, decodeString);
    const spender = pure(call, 1, ctx, decodeAddress);
    const app = normalizeStructTag(pure(call, 2, ctx, decodeString));
    const periodLimit = pure(call, 3, ctx, decodeU64);
    const windowMonths = pure(call, 4, ctx, (value) => (value.kind === 'pure' && value.bytes.length === 1 ? value.bytes[0]! : Number.NaN));
    const startMs = pure(call, 5, ctx, decodeU64);
    const expirationMs = pure(call, 6, ctx, (value) => {
      if (value.kind !== 'pure') throw new TypeError('expected Option<u64>');
      const parsed = bcs.option(bcs.u64()).parse(value.bytes);
      return parsed === null ? null : BigInt(parsed);
    });
    if (windowMonths !== 1 && windowMonths !== 12) throw abort(ctx.command, F, 'allowance', 'propose', ALLOWANCE_ABORTS.badWindow, 'window must be 1 or 12 months');
    const proposal = ctx.set.createObject(OBJECT_TYPES.allowanceProposal(type), (id) => {
      const fields = { id, funder: ctx.sender, spender, app, periodLimit, windowMonths, startMs, expirationMs, name };
      return {
        contents: MoveStructs.AllowanceProposal.serialize(fields).toBytes(),
        json: { id, funder: ctx.sender, spender, app, period_limit: periodLimit.toString(), window_months: windowMonths, start_ms: startMs.toString(), expiration_ms: expirationMs?.toString() ?? null, name },
      };
    });
    return [{ kind: 'object', id: proposal.id }];
  },

  /** The funder's soulbound AllowanceCap revokes: cap and allowance are deleted (no edits: revoke and re-issue). */
  revoke: (call, ctx) => {
    const type = typeArgument(call, 0, ctx);
    const capValue = argument(call, 0, ctx);
    if (capValue.kind !== 'object') throw argumentError(ctx.command, 0, 'expected an AllowanceCap');
    const cap = ctx.set.get(capValue.id);
    if (cap.type !== OBJECT_TYPES.allowanceCap(type)) throw argumentError(ctx.command, 0, `expected AllowanceCap<Balance<${type}>>`);
    const target = allowanceArgument(call, 1, ctx, type);
    const capState = MoveStructs.AllowanceCap.parse(cap.contents ?? cap.original!.contents);
    if (capState.allowanceId !== target.object.id) throw abort(ctx.command, F, 'allowance', 'revoke', ALLOWANCE_ABORTS.wrongCap, 'cap is for another allowance');
    ctx.set.delete(cap.id);
    ctx.set.delete(target.object.id);
    ctx.updateAllowance({ ...target.record, revoked: true });
    return [];
  },
};

export { U64_MAX };
