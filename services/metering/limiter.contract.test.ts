import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger, ManualClock } from '../core/index.js';
import type { LimitRule, RateLimiter } from './limiter.js';
import { MemoryRateLimiter } from './limiter.memory.js';
import { RedisRateLimiter } from './limiter.redis.js';

const REDIS_URL = process.env['SUIGW_TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';

/** The same semantics from both implementations (limiter.ts). Time does not move within a case. */
function contract(name: string, make: () => Promise<RateLimiter>) {
  describe(`${name} rate limiter`, () => {
    const limiters: RateLimiter[] = [];
    afterAll(async () => Promise.all(limiters.map((l) => l.close())));
    const fresh = async () => {
      const limiter = await make();
      limiters.push(limiter);
      const id = randomBytes(6).toString('hex');
      const rule = (key: string, perSecond: number): LimitRule => ({ key: `${id}:${key}`, perSecond, burst: perSecond });
      return { limiter, rule };
    };

    it('allows a burst of the rate, then denies the organization with a retry time', async () => {
      const { limiter, rule } = await fresh();
      const org = rule('org', 5);
      const outcomes = [];
      for (let i = 0; i < 6; i += 1) outcomes.push(await limiter.check({ caps: [], org, quantity: 1 }));
      expect(outcomes.map((o) => o.outcome)).toEqual(['allowed', 'allowed', 'allowed', 'allowed', 'allowed', 'org-exceeded']);
      expect(outcomes.map((o) => o.org.remaining)).toEqual([4, 3, 2, 1, 0, 0]);
      expect(outcomes[5]!.retryAfterMs).toBeGreaterThan(0);
      expect(outcomes[5]!.retryAfterMs).toBeLessThanOrEqual(200);
      expect(outcomes[5]!.org.limit).toBe(5);
    });

    it('checkNow, where it answers, takes the same decisions as check and counts them; never with caps', async () => {
      const { limiter, rule } = await fresh();
      const org = rule('org', 5);
      const outcomes = [];
      for (let i = 0; i < 6; i += 1) outcomes.push(limiter.checkNow({ caps: [], org, quantity: 1 }) ?? (await limiter.check({ caps: [], org, quantity: 1 })));
      expect(outcomes.map((o) => o.outcome)).toEqual(['allowed', 'allowed', 'allowed', 'allowed', 'allowed', 'org-exceeded']);
      expect(limiter.stats().decisions).toBe(6);
      expect(limiter.checkNow({ caps: [rule('key', 2)], org, quantity: 1 })).toBeUndefined();
    });

    it('a denying cap consumes nothing; an organization denial still consumes the caps', async () => {
      const { limiter, rule } = await fresh();
      const cap = rule('key', 2);
      const org = rule('org', 3);
      expect((await limiter.check({ caps: [cap], org, quantity: 1 })).outcome).toBe('allowed');
      expect((await limiter.check({ caps: [cap], org, quantity: 1 })).outcome).toBe('allowed');
      const capped = await limiter.check({ caps: [cap], org, quantity: 1 });
      expect(capped.outcome).toBe('cap-exceeded');
      expect(capped.org.remaining).toBe(1);
      const other = rule('other-key', 10);
      expect((await limiter.check({ caps: [other], org, quantity: 1 })).outcome).toBe('allowed');
      const denied = await limiter.check({ caps: [other], org, quantity: 1 });
      expect(denied.outcome).toBe('org-exceeded');
      // other-key was charged twice: 10 - 2 left.
      const peek = await limiter.check({ caps: [], org: other, quantity: 0 });
      expect(peek.org.remaining).toBe(8);
    });

    it('quantity 0 reads without consuming', async () => {
      const { limiter, rule } = await fresh();
      const org = rule('org', 2);
      for (let i = 0; i < 5; i += 1) expect((await limiter.check({ caps: [], org, quantity: 0 })).org.remaining).toBe(2);
    });
  });
}

contract('in-memory', async () => new MemoryRateLimiter(new ManualClock()));
contract('Redis', async () => {
  const limiter = new RedisRateLimiter({ url: REDIS_URL, logger: createLogger('silent'), clock: new ManualClock(), keyPrefix: 'suigw-test:' });
  await limiter.connect();
  return limiter;
});

describe('in-memory rate limiter over time', () => {
  it('refills at the sustained rate on the injected clock', async () => {
    const clock = new ManualClock();
    const limiter = new MemoryRateLimiter(clock);
    const org = { key: 'org', perSecond: 10, burst: 10 };
    for (let i = 0; i < 10; i += 1) await limiter.check({ caps: [], org, quantity: 1 });
    expect((await limiter.check({ caps: [], org, quantity: 1 })).outcome).toBe('org-exceeded');
    clock.advance(100);
    expect((await limiter.check({ caps: [], org, quantity: 1 })).outcome).toBe('allowed');
    expect((await limiter.check({ caps: [], org, quantity: 1 })).outcome).toBe('org-exceeded');
    clock.advance(1_000);
    expect((await limiter.check({ caps: [], org, quantity: 0 })).org.remaining).toBe(10);
  });
});

describe('a clock that went backwards', () => {
  it('in memory: a key exhausted before the clock stepped back a day starts afresh, not refused for a day', async () => {
    const clock = new ManualClock();
    const limiter = new MemoryRateLimiter(clock);
    const org = { key: 'org', perSecond: 5, burst: 5 };
    for (let i = 0; i < 5; i += 1) await limiter.check({ caps: [], org, quantity: 1 });
    expect((await limiter.check({ caps: [], org, quantity: 1 })).outcome).toBe('org-exceeded');
    clock.advance(-86_400_000);
    const after = await limiter.check({ caps: [], org, quantity: 1 });
    expect(after.outcome).toBe('allowed');
    expect(after.org.remaining).toBe(4);
  });

  it('in memory: a clock that did not go back keeps an exhausted key refused', async () => {
    const clock = new ManualClock();
    const limiter = new MemoryRateLimiter(clock);
    const org = { key: 'org', perSecond: 5, burst: 5 };
    for (let i = 0; i < 5; i += 1) await limiter.check({ caps: [], org, quantity: 1 });
    expect((await limiter.check({ caps: [], org, quantity: 1 })).outcome).toBe('org-exceeded');
    expect((await limiter.check({ caps: [], org, quantity: 1 })).outcome).toBe('org-exceeded');
  });

  it('Redis: a TAT stored a day ahead of Redis\'s clock (the clock stepped back) starts afresh, for decisions and leases', async () => {
    const { Redis } = await import('ioredis');
    const redis = new Redis(REDIS_URL);
    const prefix = `suigw-test-back-${randomBytes(4).toString('hex')}:`;
    const limiter = new RedisRateLimiter({ url: REDIS_URL, logger: createLogger('silent'), clock: new ManualClock(), keyPrefix: prefix });
    await limiter.connect();
    try {
      const [seconds] = await redis.time();
      const dayAheadUs = (Number(seconds) + 86_400) * 1_000_000;
      await redis.set(`${prefix}capped`, String(dayAheadUs), 'PX', 60_000);
      await redis.set(`${prefix}leased`, String(dayAheadUs), 'PX', 60_000);
      const capped = await limiter.check({ caps: [{ key: 'cap', perSecond: 5, burst: 5 }], org: { key: 'capped', perSecond: 5, burst: 5 }, quantity: 1 });
      expect(capped.outcome).toBe('allowed');
      expect(capped.org.remaining).toBe(4);
      // 1000/s with the default 20 ms lease: this check is served from a lease (LEASE_SCRIPT).
      const leased = await limiter.check({ caps: [], org: { key: 'leased', perSecond: 1000, burst: 1000 }, quantity: 1 });
      expect(leased.outcome).toBe('allowed');
    } finally {
      await limiter.close();
      redis.disconnect();
    }
  });
});
