/** One staking pool exchange rate: what `pool_token_amount` pool tokens were worth in SUI at an epoch. */
export interface ExchangeRate {
  epoch: bigint;
  suiAmount: bigint;
  poolTokenAmount: bigint;
}

export const APY_WINDOW_EPOCHS = 30n;
const YEAR_MS = 365 * 24 * 60 * 60 * 1000;

/** SUI per pool token; a fresh pool (no tokens yet) is worth 1:1. */
export function suiPerToken(rate: ExchangeRate): number {
  if (rate.poolTokenAmount === 0n || rate.suiAmount === 0n) return 1;
  return Number(rate.suiAmount) / Number(rate.poolTokenAmount);
}

/**
 * Annualized staking yield from two exchange rates of one pool:
 *
 *   growth = suiPerToken(latest) / suiPerToken(earlier)
 *   apy    = growth ^ (epochsPerYear / (latest.epoch - earlier.epoch)) - 1
 *   epochsPerYear = 365 days / epochDurationMs
 *
 * i.e. the rewards the pool compounded per epoch over the window, annualized with compounding
 * every epoch. Returns 0 without two distinct epochs or for a shrinking rate (slashing, bad data).
 */
export function apyFromRates(latest: ExchangeRate | undefined, earlier: ExchangeRate | undefined, epochDurationMs: bigint): number {
  if (!latest || !earlier || latest.epoch <= earlier.epoch || epochDurationMs <= 0n) return 0;
  const growth = suiPerToken(latest) / suiPerToken(earlier);
  if (!Number.isFinite(growth) || growth <= 1) return 0;
  const epochsPerYear = YEAR_MS / Number(epochDurationMs);
  const apy = growth ** (epochsPerYear / Number(latest.epoch - earlier.epoch)) - 1;
  return Number.isFinite(apy) ? apy : 0;
}

/** The epochs whose rates the formula reads: the current one and the window start (not before activation). */
export function apyWindow(currentEpoch: bigint, activationEpoch: bigint | undefined): { from: bigint; to: bigint } {
  let from = currentEpoch > APY_WINDOW_EPOCHS ? currentEpoch - APY_WINDOW_EPOCHS : 0n;
  if (activationEpoch !== undefined && activationEpoch > from) from = activationEpoch;
  return { from, to: currentEpoch };
}
