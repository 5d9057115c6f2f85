import type { AllowanceRecord, JsonValue } from '../ledger/index.js';
import { MoveStructs } from '../ledger/move-values.js';
import { abort, argumentError } from './failure.js';
import type { Handler } from './call-context.js';
import { F, argument, consume, typeArgument, withdrawalArgument } from './call-context.js';

/** Abort codes of simnet's allowance module (documented in the README). */
export const ALLOWANCE_ABORTS = { notSpender: 1n, expired: 2n, lifetimeCap: 3n, monthlyLimit: 4n, wrongFunder: 5n, appBound: 6n } as const;

function monthOf(timestampMs: bigint): number {
  const date = new Date(Number(timestampMs));
  return date.getUTCFullYear() * 100 + date.getUTCMonth() + 1;
}

export const allowanceHandlers: Record<string, Handler> = {
  balance_spend: (call, ctx) => {
    const type = typeArgument(call, 0, ctx);
    const allowanceValue = argument(call, 0, ctx);
    if (allowanceValue.kind !== 'object') throw argumentError(ctx.command, 0, 'expected an allowance');
    const object = ctx.set.get(allowanceValue.id);
    const record = ctx.allowance(object.id);
    if (!record || record.coinType !== type) throw argumentError(ctx.command, 0, `expected Allowance<Balance<${type}>>`);
    const withdrawal = withdrawalArgument(call, 1, ctx, type);
    const fail = (code: bigint, why: string) => abort(ctx.command, F, 'allowance', 'balance_spend', code, why);
    if (withdrawal.allowanceId !== object.id || withdrawal.owner !== record.funder) throw fail(ALLOWANCE_ABORTS.wrongFunder, 'withdrawal is not from this allowance');
    if (record.spender !== undefined && record.spender !== ctx.sender) throw fail(ALLOWANCE_ABORTS.notSpender, 'sender is not the spender');
    if (record.app !== undefined) throw fail(ALLOWANCE_ABORTS.appBound, 'allowance is bound to an app');
    if (record.expirationTimestampMs !== undefined && ctx.nowMs >= record.expirationTimestampMs) throw fail(ALLOWANCE_ABORTS.expired, 'allowance expired');
    const amount = withdrawal.amount;
    if (record.lifetimeSpent + amount > record.lifetimeCap) throw fail(ALLOWANCE_ABORTS.lifetimeCap, 'lifetime cap exceeded');
    const month = monthOf(ctx.nowMs);
    const monthSpent = (month === record.month ? record.monthSpent : 0n) + amount;
    if (record.monthlyLimit > 0n && monthSpent > record.monthlyLimit) throw fail(ALLOWANCE_ABORTS.monthlyLimit, 'monthly limit exceeded');
    ctx.withdrawFromAddress(record.funder, type, amount);
    consume(call, 1, withdrawal);
    const updated: AllowanceRecord = { ...record, lifetimeSpent: record.lifetimeSpent + amount, month, monthSpent };
    ctx.updateAllowance(updated);
    object.contents = MoveStructs.Allowance.serialize({
      id: object.id,
      funder: updated.funder,
      spender: updated.spender ?? null,
      app: updated.app ?? null,
      lifetimeCap: updated.lifetimeCap,
      lifetimeSpent: updated.lifetimeSpent,
      monthlyLimit: updated.monthlyLimit,
      month,
      monthSpent,
      expirationMs: updated.expirationTimestampMs ?? null,
    }).toBytes();
    object.json = { ...(object.json as Record<string, JsonValue>), lifetime_spent: updated.lifetimeSpent.toString(), month, month_spent: monthSpent.toString() };
    return [{ kind: 'balance', coinType: type, amount }];
  },
};
