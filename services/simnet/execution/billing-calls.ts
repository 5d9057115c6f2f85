import type { AllowanceRecord } from '../ledger/index.js';
import { allowanceObjectState, monthOf } from '../ledger/allowance-state.js';
import { BILLING_APP_TYPE, CATALOG, EVENT_TYPES, OBJECT_TYPES } from '../ledger/catalog.js';
import { MoveStructs } from '../ledger/move-values.js';
import { abort, argumentError } from './failure.js';
import { U64_MAX, allowanceArgument, spendUnderAllowance } from './allowance-calls.js';
import type { CallContext, Handler, MoveCallInput } from './call-context.js';
import { argument, pure, typeArgument, withdrawalArgument } from './call-context.js';
import { decodeU64 } from './values.js';

/** Abort codes of the billing app (move/suigw_billing/sources/billing.move). */
export const BILLING_ABORTS = { notSpender: 1n, wrongApp: 2n, wrongSpender: 3n } as const;

function config(call: MoveCallInput, ctx: CallContext): { spender: string; treasury: string } {
  const value = argument(call, 0, ctx);
  if (value.kind !== 'object') throw argumentError(ctx.command, 0, 'expected the BillingConfig');
  const object = ctx.set.get(value.id);
  if (object.type !== OBJECT_TYPES.billingConfig) throw argumentError(ctx.command, 0, 'expected the BillingConfig');
  return MoveStructs.BillingConfig.parse(object.contents ?? object.original!.contents);
}

/** simnet's execution of move/suigw_billing: the same checks, objects and events as the Move source. */
export const billingHandlers: Record<string, Handler> = {
  /** Issues a proposed allowance bound to this app: shares it and gives the funder its soulbound cap. */
  issue: (call, ctx) => {
    const type = typeArgument(call, 0, ctx);
    const { spender } = config(call, ctx);
    const value = argument(call, 1, ctx);
    if (value.kind !== 'object') throw argumentError(ctx.command, 1, 'expected an AllowanceProposal');
    const proposalObject = ctx.set.get(value.id);
    if (proposalObject.type !== OBJECT_TYPES.allowanceProposal(type)) throw argumentError(ctx.command, 1, `expected AllowanceProposal<Balance<${type}>>`);
    const proposal = MoveStructs.AllowanceProposal.parse(proposalObject.contents!);
    const fail = (code: bigint, why: string) => abort(ctx.command, CATALOG.billingPackage, 'billing', 'issue', code, why);
    if (proposal.app !== BILLING_APP_TYPE) throw fail(BILLING_ABORTS.wrongApp, 'proposal is for another app');
    if (proposal.spender !== spender) throw fail(BILLING_ABORTS.wrongSpender, 'proposal names another spender');
    ctx.set.delete(proposalObject.id);
    let record: AllowanceRecord | undefined;
    const allowance = ctx.set.createObject(OBJECT_TYPES.allowance(type), (id) => {
      record = {
        objectId: id,
        coinType: type,
        funder: proposal.funder,
        spender: proposal.spender,
        app: proposal.app,
        lifetimeCap: U64_MAX,
        lifetimeSpent: 0n,
        monthlyLimit: BigInt(proposal.periodLimit),
        month: monthOf(ctx.nowMs),
        monthSpent: 0n,
        expirationTimestampMs: proposal.expirationMs === null ? undefined : BigInt(proposal.expirationMs),
        name: proposal.name,
        startMs: BigInt(proposal.startMs),
        windowMonths: proposal.windowMonths === 12 ? 12 : 1,
        windowStartMs: 0n,
      };
      return allowanceObjectState(record);
    });
    allowance.owner = { kind: 'shared', initialSharedVersion: 0n };
    ctx.updateAllowance(record!);
    const cap = ctx.set.createObject(OBJECT_TYPES.allowanceCap(type), (id) => ({
      contents: MoveStructs.AllowanceCap.serialize({ id, allowanceId: allowance.id }).toBytes(),
      json: { id, allowance_id: allowance.id },
    }));
    cap.owner = { kind: 'address', address: proposal.funder };
    return [];
  },

  /** Takes one period's charge under the allowance and sends it to the treasury; only the configured spender. */
  charge: (call, ctx) => {
    const type = typeArgument(call, 0, ctx);
    const { spender, treasury } = config(call, ctx);
    if (ctx.sender !== spender) throw abort(ctx.command, CATALOG.billingPackage, 'billing', 'charge', BILLING_ABORTS.notSpender, 'only the billing spender charges');
    const target = allowanceArgument(call, 1, ctx, type);
    const withdrawal = withdrawalArgument(call, 2, ctx, type);
    const period = pure(call, 3, ctx, decodeU64);
    const amount = spendUnderAllowance(call, ctx, target, withdrawal, 2, { packageId: CATALOG.billingPackage, name: 'billing', fn: 'charge' }, BILLING_APP_TYPE);
    ctx.depositToAddress(treasury, type, amount);
    const event = { allowanceId: target.object.id, organization: target.record.name, period, amount, treasury };
    ctx.emit({
      packageId: CATALOG.billingPackage,
      module: 'billing',
      type: EVENT_TYPES.billingCharge,
      contents: MoveStructs.ChargeEvent.serialize(event).toBytes(),
      json: { allowance_id: event.allowanceId, organization: event.organization, period: period.toString(), amount: amount.toString(), treasury },
    });
    return [];
  },
};
