import type { JsonValue } from '../ledger/index.js';
import { CATALOG, EVENT_TYPES } from '../ledger/catalog.js';
import { MoveStructs } from '../ledger/move-values.js';
import { abort, argumentError } from './failure.js';
import type { Handler } from './call-context.js';
import { argument, coinArgument, consume, pure, typeArgument } from './call-context.js';
import { decodeString, decodeU64 } from './values.js';

/** The catalog protocols' entry points the producer (and tests) call. */
export const dexHandlers: Record<string, Handler> = {
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

export const lendingHandlers: Record<string, Handler> = {
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

export const collectibleHandlers: Record<string, Handler> = {
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
