import { normalizeStructTag, normalizeSuiAddress } from '@mysten/sui/utils';
import type { AllowanceRecord, JsonValue } from '../ledger/index.js';
import { CATALOG, EVENT_TYPES } from '../ledger/catalog.js';
import { SUI_FRAMEWORK } from '../ledger/constants.js';
import { MoveStructs } from '../ledger/move-values.js';
import { ExecutionFailed, abort, argumentError } from './failure.js';
import type { Value } from './values.js';
import { decodeAddress, decodeString, decodeU64, decodeU64Vector } from './values.js';
import type { WorkingObject, WorkingSet } from './working-set.js';

export interface EmittedEvent {
  readonly packageId: string;
  readonly module: string;
  readonly type: string;
  readonly contents: Uint8Array;
  readonly json: JsonValue;
}

/** What a Move call may do besides touching objects in the working set. */
export interface CallContext {
  readonly sender: string;
  readonly command: number;
  readonly set: WorkingSet;
  readonly nowMs: bigint;
  emit(event: EmittedEvent): void;
  depositToAddress(owner: string, coinType: string, amount: bigint): void;
  withdrawFromAddress(owner: string, coinType: string, amount: bigint): void;
  updateAllowance(record: AllowanceRecord): void;
  allowance(id: string): AllowanceRecord | undefined;
  /** Uniquifies envelope nonces within the ledger. */
  nextNonce(): bigint;
}

export interface MoveCallInput {
  readonly packageId: string;
  readonly module: string;
  readonly function: string;
  readonly typeArguments: readonly string[];
  readonly arguments: readonly Value[];
}

type Handler = (call: MoveCallInput, context: CallContext) => Value[];

const F = SUI_FRAMEWORK;

function typeArgument(call: MoveCallInput, index: number, context: CallContext): string {
  const type = call.typeArguments[index];
  if (type === undefined) throw new ExecutionFailed({ kind: 'commandArgumentError', command: context.command, argument: index, description: `missing type argument ${index}` });
  return normalizeStructTag(type);
}

function argument(call: MoveCallInput, index: number, context: CallContext): Value {
  const value = call.arguments[index];
  if (value === undefined) throw argumentError(context.command, index, `${call.module}::${call.function} expects more arguments`);
  return value;
}

function coinArgument(call: MoveCallInput, index: number, context: CallContext, coinType: string): WorkingObject {
  const value = argument(call, index, context);
  if (value.kind !== 'object') throw argumentError(context.command, index, 'expected a coin');
  const object = context.set.get(value.id);
  if (!object.coin || object.coin.coinType !== coinType) throw argumentError(context.command, index, `expected Coin<${coinType}>`);
  return object;
}

function balanceArgument(call: MoveCallInput, index: number, context: CallContext, coinType: string): Extract<Value, { kind: 'balance' }> {
  const value = argument(call, index, context);
  if (value.kind !== 'balance' || value.coinType !== coinType) throw argumentError(context.command, index, `expected Balance<${coinType}>`);
  return value;
}

function withdrawalArgument(call: MoveCallInput, index: number, context: CallContext, coinType: string): Extract<Value, { kind: 'withdrawal' }> {
  const value = argument(call, index, context);
  if (value.kind !== 'withdrawal' || value.coinType !== coinType) throw argumentError(context.command, index, `expected Withdrawal<Balance<${coinType}>>`);
  return value;
}

function pure<T>(call: MoveCallInput, index: number, context: CallContext, decode: (value: Value) => T): T {
  try {
    return decode(argument(call, index, context));
  } catch (error) {
    if (error instanceof ExecutionFailed) throw error;
    throw argumentError(context.command, index, (error as Error).message);
  }
}

function consume(call: MoveCallInput, index: number, value: Value): void {
  (call.arguments as Value[])[index] = { kind: 'moved' };
  if (value.kind === 'balance') value.amount = 0n;
}

function split(coin: WorkingObject, amount: bigint, context: CallContext, module: string): WorkingObject {
  if (coin.coin!.balance < amount) throw abort(context.command, F, module, 'split', 0n, `insufficient balance: ${coin.coin!.balance} < ${amount}`);
  coin.coin!.balance -= amount;
  return context.set.createCoin(coin.coin!.coinType, amount);
}

function join(target: WorkingObject, source: WorkingObject, context: CallContext): void {
  if (target.id === source.id) throw argumentError(context.command, 1, 'cannot join a coin with itself');
  target.coin!.balance += source.coin!.balance;
  context.set.delete(source.id);
}

function transferTo(object: WorkingObject, recipient: string): void {
  object.owner = { kind: 'address', address: recipient };
}

const coinHandlers: Record<string, Handler> = {
  split: (call, ctx) => {
    const type = typeArgument(call, 0, ctx);
    const coin = coinArgument(call, 0, ctx, type);
    return [{ kind: 'object', id: split(coin, pure(call, 1, ctx, decodeU64), ctx, 'coin').id }];
  },
  join: (call, ctx) => {
    const type = typeArgument(call, 0, ctx);
    join(coinArgument(call, 0, ctx, type), coinArgument(call, 1, ctx, type), ctx);
    consume(call, 1, call.arguments[1]!);
    return [];
  },
  value: (call, ctx) => [{ kind: 'u64', value: coinArgument(call, 0, ctx, typeArgument(call, 0, ctx)).coin!.balance }],
  zero: (call, ctx) => [{ kind: 'object', id: ctx.set.createCoin(typeArgument(call, 0, ctx), 0n).id }],
  destroy_zero: (call, ctx) => {
    const coin = coinArgument(call, 0, ctx, typeArgument(call, 0, ctx));
    if (coin.coin!.balance !== 0n) throw abort(ctx.command, F, 'balance', 'destroy_zero', 0n, 'balance is not zero');
    ctx.set.delete(coin.id);
    return [];
  },
  into_balance: (call, ctx) => {
    const type = typeArgument(call, 0, ctx);
    const coin = coinArgument(call, 0, ctx, type);
    ctx.set.delete(coin.id);
    return [{ kind: 'balance', coinType: type, amount: coin.coin!.balance }];
  },
  from_balance: (call, ctx) => {
    const type = typeArgument(call, 0, ctx);
    const balance = balanceArgument(call, 0, ctx, type);
    const coin = ctx.set.createCoin(type, balance.amount);
    consume(call, 0, balance);
    return [{ kind: 'object', id: coin.id }];
  },
  send_funds: (call, ctx) => {
    const type = typeArgument(call, 0, ctx);
    const coin = coinArgument(call, 0, ctx, type);
    ctx.depositToAddress(pure(call, 1, ctx, decodeAddress), type, coin.coin!.balance);
    ctx.set.delete(coin.id);
    return [];
  },
  redeem_funds: (call, ctx) => {
    const type = typeArgument(call, 0, ctx);
    const withdrawal = withdrawalArgument(call, 0, ctx, type);
    ctx.withdrawFromAddress(withdrawal.owner, type, withdrawal.amount);
    consume(call, 0, withdrawal);
    return [{ kind: 'object', id: ctx.set.createCoin(type, withdrawal.amount).id }];
  },
};

const balanceHandlers: Record<string, Handler> = {
  value: (call, ctx) => [{ kind: 'u64', value: balanceArgument(call, 0, ctx, typeArgument(call, 0, ctx)).amount }],
  zero: (call, ctx) => [{ kind: 'balance', coinType: typeArgument(call, 0, ctx), amount: 0n }],
  split: (call, ctx) => {
    const type = typeArgument(call, 0, ctx);
    const balance = balanceArgument(call, 0, ctx, type);
    const amount = pure(call, 1, ctx, decodeU64);
    if (balance.amount < amount) throw abort(ctx.command, F, 'balance', 'split', 2n, 'insufficient balance');
    balance.amount -= amount;
    return [{ kind: 'balance', coinType: type, amount }];
  },
  join: (call, ctx) => {
    const type = typeArgument(call, 0, ctx);
    const target = balanceArgument(call, 0, ctx, type);
    const source = balanceArgument(call, 1, ctx, type);
    target.amount += source.amount;
    consume(call, 1, source);
    return [{ kind: 'u64', value: target.amount }];
  },
  destroy_zero: (call, ctx) => {
    const balance = balanceArgument(call, 0, ctx, typeArgument(call, 0, ctx));
    if (balance.amount !== 0n) throw abort(ctx.command, F, 'balance', 'destroy_zero', 0n, 'balance is not zero');
    consume(call, 0, balance);
    return [];
  },
  send_funds: (call, ctx) => {
    const type = typeArgument(call, 0, ctx);
    const balance = balanceArgument(call, 0, ctx, type);
    ctx.depositToAddress(pure(call, 1, ctx, decodeAddress), type, balance.amount);
    consume(call, 0, balance);
    return [];
  },
  redeem_funds: (call, ctx) => {
    const type = typeArgument(call, 0, ctx);
    const withdrawal = withdrawalArgument(call, 0, ctx, type);
    ctx.withdrawFromAddress(withdrawal.owner, type, withdrawal.amount);
    consume(call, 0, withdrawal);
    return [{ kind: 'balance', coinType: type, amount: withdrawal.amount }];
  },
};

function coinVector(call: MoveCallInput, index: number, ctx: CallContext, type: string): WorkingObject[] {
  const value = argument(call, index, ctx);
  if (value.kind !== 'vector') throw argumentError(ctx.command, index, 'expected vector<Coin>');
  return value.items.map((item) => {
    if (item.kind !== 'object' || ctx.set.get(item.id).coin?.coinType !== type) throw argumentError(ctx.command, index, `expected vector<Coin<${type}>>`);
    return ctx.set.get(item.id);
  });
}

const payHandlers: Record<string, Handler> = {
  split: (call, ctx) => {
    const type = typeArgument(call, 0, ctx);
    transferTo(split(coinArgument(call, 0, ctx, type), pure(call, 1, ctx, decodeU64), ctx, 'pay'), ctx.sender);
    return [];
  },
  split_vec: (call, ctx) => {
    const type = typeArgument(call, 0, ctx);
    const coin = coinArgument(call, 0, ctx, type);
    for (const amount of pure(call, 1, ctx, decodeU64Vector)) transferTo(split(coin, amount, ctx, 'pay'), ctx.sender);
    return [];
  },
  split_and_transfer: (call, ctx) => {
    const type = typeArgument(call, 0, ctx);
    transferTo(split(coinArgument(call, 0, ctx, type), pure(call, 1, ctx, decodeU64), ctx, 'pay'), pure(call, 2, ctx, decodeAddress));
    return [];
  },
  join: (call, ctx) => coinHandlers.join!(call, ctx),
  join_vec: (call, ctx) => {
    const type = typeArgument(call, 0, ctx);
    const target = coinArgument(call, 0, ctx, type);
    for (const coin of coinVector(call, 1, ctx, type)) join(target, coin, ctx);
    return [];
  },
  join_vec_and_transfer: (call, ctx) => {
    const type = typeArgument(call, 0, ctx);
    const [first, ...rest] = coinVector(call, 0, ctx, type);
    if (!first) throw abort(ctx.command, F, 'pay', 'join_vec_and_transfer', 0n, 'empty vector');
    for (const coin of rest) join(first, coin, ctx);
    transferTo(first, pure(call, 1, ctx, decodeAddress));
    return [];
  },
  divide_and_keep: (call, ctx) => {
    const type = typeArgument(call, 0, ctx);
    const coin = coinArgument(call, 0, ctx, type);
    const parts = pure(call, 1, ctx, decodeU64);
    if (parts === 0n) throw abort(ctx.command, F, 'coin', 'divide_into_n', 0n, 'cannot divide into zero parts');
    const size = coin.coin!.balance / parts;
    for (let i = 1n; i < parts; i++) transferTo(split(coin, size, ctx, 'pay'), ctx.sender);
    return [];
  },
};

const transferHandlers: Record<string, Handler> = {
  public_transfer: (call, ctx) => {
    const value = argument(call, 0, ctx);
    if (value.kind !== 'object') throw argumentError(ctx.command, 0, 'expected an object');
    const object = ctx.set.get(value.id);
    if (!object.hasPublicTransfer) throw new ExecutionFailed({ kind: 'commandArgumentError', command: ctx.command, argument: 0, description: 'object does not have store' });
    transferTo(object, pure(call, 1, ctx, decodeAddress));
    consume(call, 0, value);
    return [];
  },
};

/** Abort codes of simnet's allowance module (documented in the README). */
export const ALLOWANCE_ABORTS = { notSpender: 1n, expired: 2n, lifetimeCap: 3n, monthlyLimit: 4n, wrongFunder: 5n, appBound: 6n } as const;

function monthOf(timestampMs: bigint): number {
  const date = new Date(Number(timestampMs));
  return date.getUTCFullYear() * 100 + date.getUTCMonth() + 1;
}

const allowanceHandlers: Record<string, Handler> = {
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

const dexHandlers: Record<string, Handler> = {
  swap_a_to_b: (call, ctx) => {
    const typeA = typeArgument(call, 0, ctx);
    const typeB = typeArgument(call, 1, ctx);
    const poolValue = argument(call, 0, ctx);
    if (poolValue.kind !== 'object') throw argumentError(ctx.command, 0, 'expected a pool');
    const pool = ctx.set.get(poolValue.id);
    const coinIn = coinArgument(call, 1, ctx, typeA);
    const minOut = pure(call, 2, ctx, decodeU64);
    const state = MoveStructs.Pool.parse(pool.contents ?? pool.original!.contents);
    const reserveA = BigInt(state.reserveA);
    const reserveB = BigInt(state.reserveB);
    const amountIn = coinIn.coin!.balance;
    const withFee = amountIn * (10_000n - BigInt(state.feeBps));
    const amountOut = (reserveB * withFee) / (reserveA * 10_000n + withFee);
    if (amountOut < minOut || amountOut === 0n) throw abort(ctx.command, CATALOG.dexPackage, 'pool', 'swap_a_to_b', 1n, 'slippage: output below minimum');
    pool.contents = MoveStructs.Pool.serialize({ id: pool.id, reserveA: reserveA + amountIn, reserveB: reserveB - amountOut, feeBps: BigInt(state.feeBps) }).toBytes();
    pool.json = { id: pool.id, reserve_a: (reserveA + amountIn).toString(), reserve_b: (reserveB - amountOut).toString(), fee_bps: String(state.feeBps) };
    ctx.set.delete(coinIn.id);
    consume(call, 1, call.arguments[1]!);
    const coinOut = ctx.set.createCoin(typeB, amountOut);
    ctx.emit({
      packageId: CATALOG.dexPackage,
      module: 'pool',
      type: EVENT_TYPES.swap(typeA, typeB),
      contents: MoveStructs.SwapEvent.serialize({ poolId: pool.id, sender: ctx.sender, aToB: true, amountIn, amountOut }).toBytes(),
      json: { pool_id: pool.id, sender: ctx.sender, a_to_b: true, amount_in: amountIn.toString(), amount_out: amountOut.toString() },
    });
    return [{ kind: 'object', id: coinOut.id }];
  },
};

const lendingHandlers: Record<string, Handler> = {
  deposit: (call, ctx) => {
    const type = typeArgument(call, 0, ctx);
    const marketValue = argument(call, 0, ctx);
    if (marketValue.kind !== 'object') throw argumentError(ctx.command, 0, 'expected a market');
    const market = ctx.set.get(marketValue.id);
    const coin = coinArgument(call, 1, ctx, type);
    const amount = coin.coin!.balance;
    const state = MoveStructs.Market.parse(market.contents ?? market.original!.contents);
    const total = BigInt(state.totalDeposits) + amount;
    market.contents = MoveStructs.Market.serialize({ id: market.id, totalDeposits: total }).toBytes();
    market.json = { id: market.id, total_deposits: total.toString() };
    ctx.set.delete(coin.id);
    consume(call, 1, call.arguments[1]!);
    const coinType = type.replace(/^0x/, '');
    const inner = { marketId: market.id, depositor: ctx.sender, coinType, amount };
    const innerJson = { market_id: market.id, depositor: ctx.sender, coin_type: coinType, amount: amount.toString() };
    ctx.emit({ packageId: CATALOG.lendingPackage, module: 'lending', type: EVENT_TYPES.deposit, contents: MoveStructs.DepositEvent.serialize(inner).toBytes(), json: innerJson });
    const nonce = ctx.nextNonce();
    ctx.emit({
      packageId: CATALOG.lendingPackage,
      module: 'lending',
      type: EVENT_TYPES.wrappedDeposit,
      contents: MoveStructs.WrappedDepositEvent.serialize({ inner, relayer: ctx.sender, nonce }).toBytes(),
      json: { inner: innerJson, relayer: ctx.sender, nonce: nonce.toString() },
    });
    return [];
  },
};

const collectibleHandlers: Record<string, Handler> = {
  rename: (call, ctx) => {
    const value = argument(call, 0, ctx);
    if (value.kind !== 'object') throw argumentError(ctx.command, 0, 'expected a collectible');
    const object = ctx.set.get(value.id);
    const name = pure(call, 1, ctx, decodeString);
    const state = MoveStructs.Collectible.parse(object.contents ?? object.original!.contents);
    object.contents = MoveStructs.Collectible.serialize({ ...state, name }).toBytes();
    object.json = { ...(object.json as Record<string, JsonValue>), name };
    object.display = { ...object.display, name };
    return [];
  },
};

const HANDLERS: Record<string, Record<string, Record<string, Handler>>> = {
  [F]: { coin: coinHandlers, balance: balanceHandlers, pay: payHandlers, transfer: transferHandlers, allowance: allowanceHandlers },
  [CATALOG.dexPackage]: { pool: dexHandlers },
  [CATALOG.lendingPackage]: { lending: lendingHandlers },
  [CATALOG.nftPackage]: { collectible: collectibleHandlers },
};

/**
 * Runs a supported Move call. Functions simnet does not model abort (as if the module aborted),
 * and functions that do not exist fail with FunctionNotFound; neither crashes the executor.
 */
export function executeMoveCall(call: MoveCallInput, context: CallContext): Value[] {
  const packageId = normalizeSuiAddress(call.packageId);
  const handler = HANDLERS[packageId]?.[call.module]?.[call.function];
  if (handler) return handler(call, context);
  const pkg = context.set.ledger.getPackage(packageId);
  const exists = pkg?.modules.some((module) => module.name === call.module && module.functions.some((fn) => fn.name === call.function));
  if (!exists) throw new ExecutionFailed({ kind: 'functionNotFound', command: context.command, description: `function ${packageId}::${call.module}::${call.function} not found` });
  throw abort(context.command, packageId, call.module, call.function, 0n, `simnet does not execute ${packageId}::${call.module}::${call.function}`);
}
