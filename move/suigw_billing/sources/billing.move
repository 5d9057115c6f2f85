/// suigw's billing app: issues the allowances organizations propose to pay a plan, and takes
/// one period's charge under such an allowance, to the treasury, signed by the service's spender.
///
/// NOT COMPILED HERE: no Sui toolchain (no `sui` binary, no Move compiler) is reachable from the
/// machine this repository is built on. simnet (services/simnet/execution/billing-calls.ts)
/// executes the same functions with the same checks, objects, abort codes and event, and the
/// service is tested against simnet. The `sui::allowance` calls below follow the interface
/// docs/billing.md describes (propose by the funder, issue by the app's module, per-period limit,
/// spend from the funder's address balance only, revoke by the soulbound AllowanceCap).
module suigw_billing::billing;

use std::string::String;
use sui::allowance::{Self, Allowance, AllowanceProposal};
use sui::balance::Balance;
use sui::clock::Clock;
use sui::event;
use sui::funds_accumulator::Withdrawal;

/// Abort codes (simnet's BILLING_ABORTS).
const ENotSpender: u64 = 1;
const EWrongApp: u64 = 2;
const EWrongSpender: u64 = 3;

/// The app witness: allowances issued here are bound to it; only this module can spend them.
public struct BillingApp has drop {}

/// Shared once at publication: who may charge (the service's sponsor key) and where money goes.
public struct BillingConfig has key {
    id: UID,
    spender: address,
    treasury: address,
}

/// One charge taken: the service's idempotency record on chain (allowance, period).
public struct ChargeEvent has copy, drop {
    allowance_id: ID,
    organization: String,
    period: u64,
    amount: u64,
    treasury: address,
}

fun init(ctx: &mut TxContext) {
    transfer::share_object(BillingConfig { id: object::new(ctx), spender: ctx.sender(), treasury: ctx.sender() });
}

/// Issues an allowance the funder proposed for this app and the configured spender: it is
/// shared, and the funder receives its soulbound AllowanceCap (the only way to revoke it).
public fun issue<T>(config: &BillingConfig, proposal: AllowanceProposal<Balance<T>>, ctx: &mut TxContext) {
    assert!(allowance::proposal_app(&proposal) == std::type_name::with_defining_ids<BillingApp>().into_string().to_string(), EWrongApp);
    assert!(allowance::proposal_spender(&proposal) == config.spender, EWrongSpender);
    allowance::issue(proposal, BillingApp {}, ctx);
}

/// Takes `withdrawal` (one period's price) from the funder's address balance under the
/// allowance's limits and sends it to the treasury. Only the configured spender charges.
public fun charge<T>(
    config: &BillingConfig,
    allowance: &mut Allowance<Balance<T>>,
    withdrawal: Withdrawal<Balance<T>>,
    period: u64,
    clock: &Clock,
    ctx: &mut TxContext,
) {
    assert!(ctx.sender() == config.spender, ENotSpender);
    let funds: Balance<T> = allowance::app_balance_spend(allowance, BillingApp {}, withdrawal, clock);
    let amount = funds.value();
    event::emit(ChargeEvent { allowance_id: object::id(allowance), organization: allowance::name(allowance), period, amount, treasury: config.treasury });
    balance::send_funds(funds, config.treasury);
}
