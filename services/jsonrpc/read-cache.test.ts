import { describe, expect, it } from 'vitest';
import { ManualClock, Metrics } from '../core/index.js';
import { ReadCache, type ReadCacheLimits } from './read-cache.js';

const LIMITS: ReadCacheLimits = { maxEntries: 100, maxBytes: 1_000_000, mutableTtlMs: 60_000 };

function cacheWith(limits: Partial<ReadCacheLimits> = {}, clock = new ManualClock()) {
  const metrics = new Metrics({ defaultMetrics: false });
  const cache = new ReadCache({ network: 'mainnet', limits: { ...LIMITS, ...limits }, now: () => clock.now(), instruments: metrics });
  return { cache, clock, metrics };
}

/** A JSON string value weighing exactly `bytes` bytes of JSON (its two quotes included). */
const weighing = (bytes: number) => 'x'.repeat(bytes - 2);

describe('ReadCache bounds', () => {
  it('keeps values up to exactly maxBytes of JSON; one byte more evicts the least recently used', () => {
    const { cache } = cacheWith({ maxBytes: 100 });
    cache.set('checkpoint', 'a', weighing(40));
    cache.set('checkpoint', 'b', weighing(60));
    expect(cache.usage).toEqual({ entries: 2, bytes: 100 });
    expect(cache.get('checkpoint', 'a')).toBe(weighing(40));

    // `a` was read last: `b` is the least recently used, and 100 + 1 bytes do not fit.
    cache.set('checkpoint', 'c', weighing(1 + 2));
    expect(cache.get('checkpoint', 'b')).toBeUndefined();
    expect(cache.get('checkpoint', 'a')).toBe(weighing(40));
    expect(cache.get('checkpoint', 'c')).toBe(weighing(3));
    expect(cache.usage).toEqual({ entries: 2, bytes: 43 });
  });

  it('does not keep a value larger than maxBytes', () => {
    const { cache } = cacheWith({ maxBytes: 100 });
    cache.set('checkpoint', 'small', weighing(10));
    cache.set('checkpoint', 'huge', weighing(101));
    expect(cache.get('checkpoint', 'huge')).toBeUndefined();
    expect(cache.get('checkpoint', 'small')).toBe(weighing(10));
  });

  it('keeps maxEntries entries; one more evicts the least recently used', () => {
    const { cache } = cacheWith({ maxEntries: 2 });
    cache.set('checkpoint', '1', { n: 1 });
    cache.set('checkpoint', '2', { n: 2 });
    expect(cache.usage.entries).toBe(2);
    cache.set('checkpoint', '3', { n: 3 });
    expect(cache.get('checkpoint', '1')).toBeUndefined();
    expect(cache.get('checkpoint', '2')).toEqual({ n: 2 });
    expect(cache.get('checkpoint', '3')).toEqual({ n: 3 });
  });

  it('keys kinds apart', () => {
    const { cache } = cacheWith();
    cache.set('move-function', '0x2::coin::value', 'function');
    expect(cache.get('move-struct', '0x2::coin::value')).toBeUndefined();
  });
});

describe('ReadCache freshness, by the one clock', () => {
  it('serves a mutable read until its age is the TTL and fetches it again one millisecond later', () => {
    const { cache, clock } = cacheWith({ mutableTtlMs: 60_000 });
    cache.set('coin-metadata', 'USDC', { symbol: 'USDC' });
    clock.advance(60_000);
    expect(cache.get('coin-metadata', 'USDC')).toEqual({ symbol: 'USDC' });
    clock.advance(1);
    expect(cache.get('coin-metadata', 'USDC')).toBeUndefined();
  });

  it('keeps an immutable read whatever the time', () => {
    const { cache, clock } = cacheWith();
    cache.set('checkpoint', '7', { sequenceNumber: '7' });
    clock.advance(365 * 86_400_000);
    expect(cache.get('checkpoint', '7')).toEqual({ sequenceNumber: '7' });
  });

  it('keeps a key of an immutable kind as mutable when told (a system package)', () => {
    const { cache, clock } = cacheWith();
    cache.set('move-package', '0x2', { coin: {} }, 'mutable');
    clock.advance(60_001);
    expect(cache.get('move-package', '0x2')).toBeUndefined();
  });

  it('keeps no mutable read with a TTL of 0', () => {
    const { cache } = cacheWith({ mutableTtlMs: 0 });
    cache.set('coin-metadata', 'USDC', { symbol: 'USDC' });
    expect(cache.get('coin-metadata', 'USDC')).toBeUndefined();
    expect(cache.usage.entries).toBe(0);
  });
});

describe('ReadCache.read', () => {
  it('loads once, then answers from the cache', async () => {
    const { cache } = cacheWith();
    let loads = 0;
    const load = async () => ({ loaded: ++loads });
    expect(await cache.read('checkpoint', '1', load)).toEqual({ loaded: 1 });
    expect(await cache.read('checkpoint', '1', load)).toEqual({ loaded: 1 });
    expect(loads).toBe(1);
  });

  it('keeps no failure and nothing `keep` refuses', async () => {
    const { cache } = cacheWith();
    let loads = 0;
    const failing = async (): Promise<string> => {
      loads += 1;
      throw new Error('upstream down');
    };
    await expect(cache.read('checkpoint', '1', failing)).rejects.toThrow('upstream down');
    await expect(cache.read('checkpoint', '1', failing)).rejects.toThrow('upstream down');
    expect(loads).toBe(2);
    const notYet = async () => ({ final: false, loads: ++loads });
    await cache.read('transaction', 'd', notYet, { keep: (value) => value.final });
    await cache.read('transaction', 'd', notYet, { keep: (value) => value.final });
    expect(loads).toBe(4);
  });

  it('counts hits and misses per network and kind, and records its size', async () => {
    const { cache, metrics } = cacheWith();
    await cache.read('checkpoint', '1', async () => weighing(10));
    await cache.read('checkpoint', '1', async () => weighing(10));
    await cache.read('checkpoint', '1', async () => weighing(10));
    const exposition = await metrics.registry.metrics();
    expect(exposition).toContain('suigw_jsonrpc_cache_lookups_total{network="mainnet",kind="checkpoint",result="hit"} 2');
    expect(exposition).toContain('suigw_jsonrpc_cache_lookups_total{network="mainnet",kind="checkpoint",result="miss"} 1');
    expect(exposition).toContain('suigw_jsonrpc_cache_lookups_total{network="mainnet",kind="coin-metadata",result="hit"} 0');
    expect(exposition).toContain('suigw_jsonrpc_cache_bytes{network="mainnet"} 10');
    expect(exposition).toContain('suigw_jsonrpc_cache_entries{network="mainnet"} 1');
  });
});
