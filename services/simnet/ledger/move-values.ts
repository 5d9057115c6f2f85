import { bcs } from '@mysten/sui/bcs';

/** BCS layouts of the Move structs simnet writes (field order = Move declaration order). */
export const MoveStructs = {
  Coin: bcs.struct('Coin', { id: bcs.Address, balance: bcs.u64() }),
  CoinMetadata: bcs.struct('CoinMetadata', {
    id: bcs.Address,
    decimals: bcs.u8(),
    name: bcs.string(),
    symbol: bcs.string(),
    description: bcs.string(),
    iconUrl: bcs.option(bcs.string()),
  }),
  TreasuryCap: bcs.struct('TreasuryCap', { id: bcs.Address, totalSupply: bcs.u64() }),
  StakedSui: bcs.struct('StakedSui', { id: bcs.Address, poolId: bcs.Address, stakeActivationEpoch: bcs.u64(), principal: bcs.u64() }),
  Collectible: bcs.struct('Collectible', { id: bcs.Address, name: bcs.string(), description: bcs.string(), imageUrl: bcs.string(), edition: bcs.u64() }),
  Display: bcs.struct('Display', { id: bcs.Address, fields: bcs.vector(bcs.struct('Entry', { key: bcs.string(), value: bcs.string() })), version: bcs.u16() }),
  SuinsRegistration: bcs.struct('SuinsRegistration', { id: bcs.Address, domainName: bcs.string(), expirationTimestampMs: bcs.u64(), imageUrl: bcs.string() }),
  Pool: bcs.struct('Pool', { id: bcs.Address, reserveA: bcs.u64(), reserveB: bcs.u64(), feeBps: bcs.u64() }),
  Market: bcs.struct('Market', { id: bcs.Address, totalDeposits: bcs.u64() }),
  /** Prefix matches what the SDK's allowance resolver reads (id, funder, spender, app). */
  Allowance: bcs.struct('Allowance', {
    id: bcs.Address,
    funder: bcs.Address,
    spender: bcs.option(bcs.Address),
    app: bcs.option(bcs.string()),
    lifetimeCap: bcs.u64(),
    lifetimeSpent: bcs.u64(),
    monthlyLimit: bcs.u64(),
    month: bcs.u32(),
    monthSpent: bcs.u64(),
    expirationMs: bcs.option(bcs.u64()),
  }),
  ExchangeRateField: bcs.struct('Field', { id: bcs.Address, name: bcs.u64(), suiAmount: bcs.u64(), poolTokenAmount: bcs.u64() }),
  SwapEvent: bcs.struct('SwapEvent', { poolId: bcs.Address, sender: bcs.Address, aToB: bcs.bool(), amountIn: bcs.u64(), amountOut: bcs.u64() }),
  DepositEvent: bcs.struct('DepositEvent', { marketId: bcs.Address, depositor: bcs.Address, coinType: bcs.string(), amount: bcs.u64() }),
  WrappedDepositEvent: bcs.struct('Wrapped', {
    inner: bcs.struct('DepositEvent', { marketId: bcs.Address, depositor: bcs.Address, coinType: bcs.string(), amount: bcs.u64() }),
    relayer: bcs.Address,
    nonce: bcs.u64(),
  }),
} as const;
