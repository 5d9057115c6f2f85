import { describe, expect, it } from 'vitest';
import type { Upstream } from '../../upstream/index.js';
import { AccountService } from './accounts.js';
import { COIN_INFO_TTL_MS, CoinService } from './coins.js';
import type { NetworkContext } from './context.js';
import { noPrices } from './price-source.js';

const USDC = '0xa1ec7fc00a6f40db9693ad1415d0c193ad3906494428cf252621037bd7117e29::usdc::USDC';
const BARE = '0x5::bare::BARE';

/** A network whose node knows USDC's metadata and none for BARE, counting its reads. */
function network(name: 'mainnet' | 'testnet') {
  const reads: string[] = [];
  const upstream = {
    call: (_operation: string, invoke: (options: object) => unknown) => invoke({}),
    grpc: {
      stateService: {
        listBalances: async () => ({ response: { balances: [{ coinType: USDC, balance: 1_500_000n }, { coinType: BARE, balance: 7n }], nextPageToken: undefined } }),
        getCoinInfo: async ({ coinType }: { coinType: string }) => {
          reads.push(coinType);
          return { response: coinType.endsWith('::usdc::USDC') ? { metadata: { decimals: 6, name: 'USD Coin', symbol: 'USDC', description: '' } } : {} };
        },
      },
    },
  } as unknown as Upstream;
  const ctx: NetworkContext = { network: name, upstream };
  return { ctx, reads };
}

describe('CoinService.known', () => {
  it('answers kept metadata without a read: undefined until read, null for a coin without any, undefined again after the TTL', async () => {
    let now = 0;
    const coins = new CoinService({ prices: noPrices, verifiedCoinTypes: [], now: () => now });
    const { ctx, reads } = network('mainnet');
    expect(coins.known('mainnet', USDC)).toBeUndefined();
    expect(coins.known('mainnet', BARE)).toBeUndefined();
    await coins.info(ctx, USDC);
    await coins.info(ctx, BARE);
    expect(coins.known('mainnet', USDC)).toMatchObject({ decimals: 6, symbol: 'USDC' });
    expect(coins.known('mainnet', BARE)).toBeNull();
    // Kept under the full type, whichever spelling asks.
    expect(coins.known('mainnet', `0x${'0'.repeat(63)}5::bare::BARE`)).toBeNull();
    expect(coins.known('testnet', USDC)).toBeUndefined();
    expect(reads).toHaveLength(2);
    now += COIN_INFO_TTL_MS - 1;
    expect(coins.known('mainnet', USDC)).toBeDefined();
    now += 1;
    expect(coins.known('mainnet', USDC)).toBeUndefined();
    expect(coins.known('mainnet', BARE)).toBeUndefined();
  });

  it('info reads a coin once per network within the TTL', async () => {
    const coins = new CoinService({ prices: noPrices, verifiedCoinTypes: [], now: () => 0 });
    const mainnet = network('mainnet');
    const testnet = network('testnet');
    expect((await coins.info(mainnet.ctx, USDC))?.decimals).toBe(6);
    expect((await coins.info(mainnet.ctx, USDC))?.decimals).toBe(6);
    expect(await coins.info(mainnet.ctx, BARE)).toBeUndefined();
    expect(await coins.info(mainnet.ctx, BARE)).toBeUndefined();
    await coins.info(testnet.ctx, USDC);
    expect(mainnet.reads).toHaveLength(2);
    expect(testnet.reads).toHaveLength(1);
  });
});

describe('AccountService.balances with kept metadata', () => {
  it('reads only the coin types not kept, and maps every balance alike either way', async () => {
    const coins = new CoinService({ prices: noPrices, verifiedCoinTypes: [], now: () => 0 });
    // Balances use only the coin service and the upstream.
    const accounts = new AccountService({ coins, chain: undefined as never, cursors: undefined as never });
    const { ctx, reads } = network('mainnet');
    await coins.info(ctx, USDC);
    const first = await accounts.balances(ctx, '0x1');
    expect(reads).toHaveLength(2);
    const again = await accounts.balances(ctx, '0x1');
    expect(reads).toHaveLength(2);
    expect(again).toEqual(first);
    expect(first.map((b) => [b.decimals, b.symbol, b.formattedBalance])).toEqual([[6, 'USDC', '1.5'], [0, undefined, undefined]]);
  });
});
