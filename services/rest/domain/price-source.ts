import type { Network } from '../../upstream/index.js';
import { fullType } from './proto-values.js';

/** USD price of one whole coin of a type, if known. */
export interface PriceSource {
  usdPrice(network: Network, coinType: string): Promise<number | undefined>;
}

export const noPrices: PriceSource = { usdPrice: async () => undefined };

/**
 * Fixed prices from configuration (`SUIGW_PRICES`, JSON `{"<coinType>": usd}`), e.g. stablecoins
 * pinned at 1, for mainnet only: a test network's coins (SUI from a faucet, a test USDC) are worth
 * nothing, and the same type string there is not the mainnet coin. Keys are normalized to full
 * 64-hex type strings.
 */
export class StaticPriceSource implements PriceSource {
  readonly #prices: Map<string, number>;
  constructor(prices: Record<string, number>) {
    this.#prices = new Map(Object.entries(prices).map(([type, usd]) => [fullType(type), usd]));
  }
  async usdPrice(network: Network, coinType: string): Promise<number | undefined> {
    if (network !== 'mainnet') return undefined;
    return this.#prices.get(fullType(coinType));
  }
}

export interface HttpPriceFeedOptions {
  /** GET returns `{"prices": {"<coinType>": usd}}`; mainnet prices apply to mainnet only. */
  url: string;
  ttlMs: number;
  timeoutMs: number;
  now: () => number;
}

/**
 * A configured price feed over HTTP, fetched at most once per TTL and shared by all requests.
 * A failing feed (unreachable, unreadable, a non-2xx answer, a body without `prices`) keeps the
 * last prices it gave, none before its first answer: the optional fields are left out, the
 * request never fails.
 */
export class HttpPriceFeed implements PriceSource {
  readonly #options: HttpPriceFeedOptions;
  #prices: Map<string, number> = new Map();
  #fetchedAt = -Infinity;
  #inflight: Promise<void> | undefined;

  constructor(options: HttpPriceFeedOptions) { this.#options = options; }

  async usdPrice(network: Network, coinType: string): Promise<number | undefined> {
    if (network !== 'mainnet') return undefined;
    if (this.#options.now() - this.#fetchedAt > this.#options.ttlMs) {
      this.#inflight ??= this.#refresh().finally(() => { this.#inflight = undefined; });
      await this.#inflight;
    }
    return this.#prices.get(fullType(coinType));
  }

  async #refresh(): Promise<void> {
    try {
      const response = await fetch(this.#options.url, { signal: AbortSignal.timeout(this.#options.timeoutMs) });
      if (!response.ok) {
        await response.body?.cancel();
        throw new Error(`the price feed answered HTTP ${response.status}`);
      }
      const listed = pricesOf(await response.json());
      if (!listed) throw new Error('the price feed answered without a prices object');
      const prices = new Map<string, number>();
      for (const [type, usd] of Object.entries(listed)) {
        if (typeof usd === 'number' && Number.isFinite(usd)) prices.set(fullType(type), usd);
      }
      this.#prices = prices;
    } catch {
      // keep the previous prices; try again after the TTL
    }
    this.#fetchedAt = this.#options.now();
  }
}

/**
 * The feed's price object, or undefined when the body has none: an error body (even JSON, e.g.
 * `{"error": "maintenance"}`) is a failing feed, not a feed without prices.
 */
function pricesOf(body: unknown): Record<string, unknown> | undefined {
  if (typeof body !== 'object' || body === null || !('prices' in body)) return undefined;
  const { prices } = body;
  return typeof prices === 'object' && prices !== null && !Array.isArray(prices) ? prices as Record<string, unknown> : undefined;
}

/** First source with an answer wins (e.g. configured fixed prices, then a feed). */
export class ChainedPriceSource implements PriceSource {
  readonly #sources: PriceSource[];
  constructor(sources: PriceSource[]) { this.#sources = sources; }
  async usdPrice(network: Network, coinType: string): Promise<number | undefined> {
    for (const source of this.#sources) {
      const price = await source.usdPrice(network, coinType);
      if (price !== undefined) return price;
    }
    return undefined;
  }
}
