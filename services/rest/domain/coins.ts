import { ApiError } from '../../core/errors.js';
import type { CoinMetadata } from '../schemas.js';
import type { Network } from '../../upstream/index.js';
import type { NetworkContext } from './context.js';
import { fullType } from './proto-values.js';
import type { PriceSource } from './price-source.js';
import { askOptional } from './upstream-calls.js';
import { imageUrl } from './web-url.js';

export interface CoinInfo {
  type: string;
  decimals: number;
  name: string;
  symbol: string;
  description: string;
  iconUrl?: string;
  totalSupply?: bigint;
}

const SUI_TYPE = fullType('0x2::sui::SUI');

/** How long a coin type's metadata (or its absence) is kept before it is read again. */
export const COIN_INFO_TTL_MS = 60_000;

/**
 * Coin metadata, read once per (network, coin type) and kept for a minute, since balances ask
 * for it on every call: long enough to spare the node, short enough for what does change (the
 * total supply with every mint and burn; name, symbol and icon when the TreasuryCap's or
 * MetadataCap's holder updates them). Coin types without metadata are kept as such as long.
 */
export class CoinService {
  readonly #prices: PriceSource;
  readonly #verified: Set<string>;
  readonly #now: () => number;
  /** By network, then coin type: looked up on every balance, so without building a key. */
  readonly #known = new Map<Network, Map<string, { info: CoinInfo | null; at: number }>>();

  constructor(deps: { prices: PriceSource; verifiedCoinTypes: string[]; now: () => number }) {
    this.#prices = deps.prices;
    this.#verified = new Set(deps.verifiedCoinTypes.map(fullType));
    this.#now = deps.now;
  }

  /**
   * The kept metadata of a coin type, without a promise: `null` when the coin has none,
   * `undefined` when it is not kept (or kept too long) and `info` must read it.
   */
  known(network: Network, coinType: string): CoinInfo | null | undefined {
    const hit = this.#known.get(network)?.get(fullType(coinType));
    return hit && this.#now() - hit.at < COIN_INFO_TTL_MS ? hit.info : undefined;
  }

  async info(ctx: NetworkContext, coinType: string): Promise<CoinInfo | undefined> {
    const known = this.known(ctx.network, coinType);
    if (known !== undefined) return known ?? undefined;
    const type = fullType(coinType);
    const response = await askOptional(ctx.upstream, 'GetCoinInfo', (o) => ctx.upstream.grpc.stateService.getCoinInfo({ coinType: type }, o));
    const m = response?.metadata;
    const info: CoinInfo | null = m ? {
      type,
      decimals: m.decimals ?? 0,
      name: m.name ?? '',
      symbol: m.symbol ?? '',
      description: m.description ?? '',
      ...(m.iconUrl ? { iconUrl: m.iconUrl } : {}),
      ...(response?.treasury?.totalSupply !== undefined ? { totalSupply: response.treasury.totalSupply } : {}),
    } : null;
    let kept = this.#known.get(ctx.network);
    if (kept === undefined) this.#known.set(ctx.network, (kept = new Map()));
    if (kept.size > 10_000) kept.clear();
    kept.set(type, { info, at: this.#now() });
    return info ?? undefined;
  }

  async metadata(ctx: NetworkContext, coinType: string): Promise<CoinMetadata> {
    const info = await this.info(ctx, coinType);
    if (!info) throw new ApiError('COIN_NOT_FOUND', { message: `No coin metadata for ${fullType(coinType)}` });
    const result: CoinMetadata = {
      type: info.type, name: info.name, symbol: info.symbol, description: info.description, decimals: info.decimals,
      verified: info.type === SUI_TYPE || this.#verified.has(info.type),
    };
    const iconUrl = imageUrl(info.iconUrl);
    if (iconUrl) result.iconUrl = iconUrl;
    if (info.totalSupply !== undefined) result.totalSupply = info.totalSupply.toString();
    const price = await this.#prices.usdPrice(ctx.network, info.type);
    if (price !== undefined) {
      result.usdValue = price;
      if (info.totalSupply !== undefined) result.marketCap = price * Number(info.totalSupply) / 10 ** info.decimals;
    }
    return result;
  }

  /** USD value of `amount` base units, when the price source knows the coin. */
  async usdValue(ctx: NetworkContext, coinType: string, amount: bigint): Promise<number | undefined> {
    const price = await this.#prices.usdPrice(ctx.network, coinType);
    if (price === undefined) return undefined;
    const info = await this.info(ctx, coinType);
    return price * Number(amount) / 10 ** (info?.decimals ?? 0);
  }
}
