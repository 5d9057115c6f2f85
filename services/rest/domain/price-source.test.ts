import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ChainedPriceSource, HttpPriceFeed, StaticPriceSource } from './price-source.js';

const SUI = '0x2::sui::SUI';
const FULL_SUI = `0x${'0'.repeat(63)}2::sui::SUI`;

describe('price sources', () => {
  let server: http.Server;
  let url: string;
  let hits = 0;
  let status = 200;
  let answer: () => string;
  beforeEach(() => {
    status = 200;
    answer = () => JSON.stringify({ prices: { [SUI]: 2.5 } });
  });
  beforeAll(async () => {
    server = http.createServer((_req, res) => { hits += 1; res.statusCode = status; res.end(answer()); });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/prices`;
  });
  afterAll(async () => { server.closeAllConnections(); await new Promise((resolve) => server.close(resolve)); });

  it('fixed prices match short and full type strings', async () => {
    const prices = new StaticPriceSource({ [SUI]: 1.9 });
    expect(await prices.usdPrice('mainnet', FULL_SUI)).toBe(1.9);
    expect(await prices.usdPrice('mainnet', '0x2::coin::COIN')).toBeUndefined();
  });

  it('fixed prices apply to mainnet only, as the feed\'s do: testnet and devnet SUI has no USD value', async () => {
    const prices = new StaticPriceSource({ [SUI]: 1.9 });
    expect(await prices.usdPrice('testnet', SUI)).toBeUndefined();
    expect(await prices.usdPrice('devnet', FULL_SUI)).toBeUndefined();
    expect(await new ChainedPriceSource([prices]).usdPrice('testnet', SUI)).toBeUndefined();
  });

  it('the feed is read once per TTL, for mainnet only, and a failing feed keeps the last prices', async () => {
    let now = 0;
    const feed = new HttpPriceFeed({ url, ttlMs: 60_000, timeoutMs: 1_000, now: () => now });
    expect(await feed.usdPrice('mainnet', FULL_SUI)).toBe(2.5);
    expect(await feed.usdPrice('mainnet', SUI)).toBe(2.5);
    expect(hits).toBe(1);
    expect(await feed.usdPrice('testnet', SUI)).toBeUndefined();
    answer = () => 'not json';
    now += 61_000;
    expect(await feed.usdPrice('mainnet', SUI)).toBe(2.5);
    expect(hits).toBe(2);
  });

  it.each([
    ['a non-2xx answer with a JSON body', 503, '{"error":"maintenance"}'],
    ['a 2xx answer without a prices object', 200, '{"error":"maintenance"}'],
    ['a 2xx answer whose prices are a list', 200, '{"prices":[]}'],
  ])('%s is a failing feed: the last prices stay', async (_case, failingStatus, failingBody) => {
    let now = 0;
    const feed = new HttpPriceFeed({ url, ttlMs: 60_000, timeoutMs: 1_000, now: () => now });
    expect(await feed.usdPrice('mainnet', SUI)).toBe(2.5);
    status = failingStatus;
    answer = () => failingBody;
    now += 61_000;
    const before = hits;
    expect(await feed.usdPrice('mainnet', SUI)).toBe(2.5);
    expect(hits).toBe(before + 1);
  });

  it('chained: the first source with a price wins', async () => {
    const chained = new ChainedPriceSource([new StaticPriceSource({ '0x2::coin::COIN': 1 }), new StaticPriceSource({ [SUI]: 3 })]);
    expect(await chained.usdPrice('mainnet', SUI)).toBe(3);
    expect(await chained.usdPrice('mainnet', '0x2::coin::COIN')).toBe(1);
  });
});
