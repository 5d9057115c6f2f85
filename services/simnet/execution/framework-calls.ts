import { decodeAddress, decodeU64, decodeU64Vector } from './values.js';
import type { WorkingObject } from './working-set.js';
import { ExecutionFailed, abort, argumentError } from './failure.js';
import type { CallContext, Handler, MoveCallInput } from './call-context.js';
import { F, argument, balanceArgument, coinArgument, consume, join, pure, split, transferTo, typeArgument, withdrawalArgument } from './call-context.js';

/** `0x2::coin`, `0x2::balance`, `0x2::pay` and `0x2::transfer`: what the SDK's builders call. */
export const coinHandlers: Record<string, Handler> = {
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

export const balanceHandlers: Record<string, Handler> = {
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

export const payHandlers: Record<string, Handler> = {
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

export const transferHandlers: Record<string, Handler> = {
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
