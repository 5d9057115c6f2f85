/**
 * Inputs for the REST fuzz: every path parameter and query of the `/v1` data routes, as random
 * and boundary values. A case is `{method, path, body?}` with `path` under `/{network}/v1`,
 * already URL-encoded (so a corpus can also hold raw bytes such as a lone `%`).
 */
export interface FuzzCase {
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
}

/** mulberry32: small, seedable, good enough to spread inputs. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const HEX = '0123456789abcdef';
const NOISE = 'aZ09_-.:/%?#&=+ <>\'"\\\u00e9\u4e2d\u{1F600}\u0000\n';

type Random = () => number;
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const chars = (random: Random, alphabet: string, length: number) =>
  Array.from({ length }, () => pick(random, [...alphabet])).join('');
const int = (random: Random, max: number) => Math.floor(random() * (max + 1));

/** Boundary and random values per kind of parameter. */
export function valuesOf(random: Random, known: { address: string; digest: string }) {
  const noise = () => chars(random, NOISE, int(random, 80));
  return {
    address: () => pick(random, [
      known.address, `0x${chars(random, HEX, 64)}`, `0x${chars(random, HEX, int(random, 70))}`, '0x2', '0x', '',
      `0x${'f'.repeat(64)}`, `0x${'F'.repeat(64)}`, `0x${'0'.repeat(64)}`, `0x${'g'.repeat(64)}`, noise(),
    ]),
    digest: () => pick(random, [
      known.digest, chars(random, BASE58, 32 + int(random, 12)), chars(random, BASE58, int(random, 60)),
      chars(random, '123456789', 32 + int(random, 12)), '1'.repeat(32), '1'.repeat(44), 'z'.repeat(44), noise(),
    ]),
    checkpoint: () => pick(random, [
      '0', '1', '18446744073709551615', '18446744073709551616', '9'.repeat(20), String(int(random, 1e9)),
      chars(random, '0123456789', 1 + int(random, 40)), '-1', '+1', '0x10', '1e3', 'latest', known.digest,
      chars(random, '123456789', 32 + int(random, 12)), chars(random, BASE58, 32 + int(random, 12)), noise(),
    ]),
    limit: () => pick(random, [
      '0', '1', '50', '51', '100', '101', '-1', '0x10', '1e1', '', ' 5', '1.5', '9'.repeat(30), String(int(random, 200)), noise(),
    ]),
    cursor: () => pick(random, ['', 'a', 'abc.def', chars(random, BASE58, 1 + int(random, 200)), 'x'.repeat(3000), noise()]),
    bool: () => pick(random, ['true', 'false', '', '1', 'TRUE', noise()]),
    coinType: () => pick(random, [
      '0x2::sui::SUI', `0x${'0'.repeat(63)}2::sui::SUI`, '0x2::coin::Coin<0x2::sui::SUI>', '0x2::coin::Coin<vector<u8>>',
      `0x${chars(random, HEX, 64)}::m::T`, `0x${'f'.repeat(65)}::a::b`, 'a::b::c', '0x2::sui', '0x2::coin::Coin<>',
      `0x2::c::C${'<0x2::c::C'.repeat(20)}${'>'.repeat(20)}`, noise(),
    ]),
    name: () => pick(random, [
      'example', 'example.sui', 'a'.repeat(63), 'a'.repeat(64), `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(43)}`,
      'a..b', '-a', 'a-', 'sub.example', chars(random, 'abcdefghijklmnopqrstuvwxyz0123456789-.', 1 + int(random, 80)), noise(),
    ]),
    word: () => pick(random, ['Success', 'Error', 'asc', 'desc', 'raw', 'activity', noise()]),
    any: () => pick(random, [null, 1, -1, 1e308, true, {}, [], noise(), [noise()]]),
  };
}

const q = (params: Record<string, string | undefined>) => {
  const entries = Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined);
  return entries.length ? `?${entries.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')}` : '';
};
const seg = encodeURIComponent;

/** One random request to one of the REST routes. */
export function randomCase(random: Random, known: { address: string; digest: string }): FuzzCase {
  const v = valuesOf(random, known);
  const maybe = (value: () => string) => (random() < 0.5 ? value() : undefined);
  const include = () => ({ includeEvents: maybe(v.bool), includeMetadata: maybe(v.bool), includeCommands: maybe(v.bool), includeBalanceChanges: maybe(v.bool) });
  const list = <T>(value: () => T) => Array.from({ length: pick(random, [0, 1, 2, 3, 101]) }, value);
  const makers: (() => FuzzCase)[] = [
    () => ({ method: 'GET', path: `/accounts/${seg(v.address())}` }),
    () => ({ method: 'GET', path: `/accounts/${seg(v.address())}/balance` }),
    () => ({ method: 'GET', path: `/accounts/${seg(v.address())}/delegations` }),
    () => ({ method: 'GET', path: `/accounts/${seg(v.address())}/objects${q({ limit: maybe(v.limit), cursor: maybe(v.cursor) })}` }),
    () => ({ method: 'GET', path: `/accounts/${seg(v.address())}/transactions${q({ limit: maybe(v.limit), cursor: maybe(v.cursor), format: maybe(v.word), includeReceived: maybe(v.bool) })}` }),
    () => ({ method: 'GET', path: `/transactions/latest${q({ limit: maybe(v.limit), cursor: maybe(v.cursor) })}` }),
    () => ({ method: 'GET', path: `/transactions${q({ limit: maybe(v.limit), cursor: maybe(v.cursor), status: maybe(v.word), sender: maybe(v.address), orderBy: maybe(v.word), ...include() })}` }),
    () => ({ method: 'GET', path: `/transactions/${seg(v.digest())}${q(include())}` }),
    () => ({ method: 'GET', path: `/transactions/${seg(v.digest())}/raw` }),
    () => ({ method: 'POST', path: `/transactions/batch${q(include())}`, body: random() < 0.8 ? { digests: list(v.digest) } : v.any() }),
    () => ({ method: 'GET', path: `/objects/${seg(v.address())}` }),
    () => ({ method: 'GET', path: `/objects/${seg(v.address())}/metadata` }),
    () => ({ method: 'POST', path: '/objects/batch', body: random() < 0.8 ? { ids: list(v.address) } : v.any() }),
    () => ({ method: 'GET', path: `/packages/${seg(v.address())}` }),
    () => ({ method: 'GET', path: `/coins/${seg(v.coinType())}/metadata` }),
    () => ({ method: 'GET', path: `/checkpoints/${seg(v.checkpoint())}` }),
    () => ({ method: 'GET', path: `/names/${seg(v.name())}` }),
    () => ({ method: 'GET', path: `/names/${seg(v.name())}/availability` }),
    () => ({ method: 'GET', path: `/names/reverse/${seg(v.address())}` }),
    () => ({ method: 'POST', path: '/names/batch', body: random() < 0.8 ? { names: list(v.name) } : v.any() }),
  ];
  return pick(random, makers)();
}

/** The routes without inputs, asked once each per run. */
export const FIXED_PATHS = ['/chain', '/checkpoints/latest', '/staking/parameters', '/network/stats', '/validators', '/validators/apy', '/transactions/stats'];
