import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger, ManualClock } from '../core/index.js';
import type { LimitDecision, LimitRule } from './limiter.js';
import { RedisRateLimiter } from './limiter.redis.js';

const REDIS_URL = process.env['SUIGW_TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';

/**
 * The Redis limiter's organization leases (limiter.redis.ts, docs/metering.md "Leases") on a real
 * Redis. Every limiter here is one gateway process; time stands still on the local clock unless a
 * case moves it, so leases expire only when a case says so.
 */
describe('Redis limiter: organization leases', () => {
  const limiters: RedisRateLimiter[] = [];
  afterAll(async () => Promise.all(limiters.map((l) => l.close())));

  async function process(options: { clock?: ManualClock; leaseMs?: number; url?: string; prefix: string }) {
    const limiter = new RedisRateLimiter({
      url: options.url ?? REDIS_URL,
      logger: createLogger('silent'),
      clock: options.clock ?? new ManualClock(),
      keyPrefix: options.prefix,
      leaseMs: options.leaseMs ?? 20,
      timeoutMs: 2_000,
    });
    await limiter.connect();
    limiters.push(limiter);
    return limiter;
  }
  const prefix = () => `suigw-test-lease-${randomBytes(6).toString('hex')}:`;
  const org = (perSecond: number): LimitRule => ({ key: 'org:o1', perSecond, burst: perSecond });
  const allowed = (decisions: LimitDecision[]) => decisions.filter((d) => d.outcome === 'allowed').length;

  it('answers organization-only requests from leases: 100 decisions, 8 Redis calls (leases of 2, 4, 8, 16, then 20)', async () => {
    // 1,000/s × 20 ms: a lease holds at most 20 requests.
    const limiter = await process({ prefix: prefix() });
    const decisions: LimitDecision[] = [];
    for (let i = 0; i < 100; i += 1) decisions.push(await limiter.check({ caps: [], org: org(1_000), quantity: 1 }));
    expect(allowed(decisions)).toBe(100);
    expect(limiter.stats()).toEqual({ decisions: 100, failOpen: 0, roundTrips: 8 });
    // X-RateLimit-Remaining counts down by one per request, as without leases: Redis's remaining plus what the lease still holds.
    // (Redis refills 1 a millisecond between leases, so only the first lease's figures are exact.)
    expect(decisions.slice(0, 2).map((d) => d.org.remaining)).toEqual([999, 998]);
    const second = decisions.slice(2, 6).map((d) => d.org.remaining);
    expect(second).toEqual([second[0], second[0]! - 1, second[0]! - 2, second[0]! - 3]);
  });

  it('header-only reads (free routes) share one Redis call per lease window, or read the live lease; then read again', async () => {
    const clock = new ManualClock();
    const limiter = await process({ clock, prefix: prefix() });
    const reads = await Promise.all(Array.from({ length: 10 }, () => limiter.check({ caps: [], org: org(1_000), quantity: 0 })));
    for (let i = 0; i < 10; i += 1) reads.push(await limiter.check({ caps: [], org: org(1_000), quantity: 0 }));
    expect(limiter.stats().roundTrips).toBe(1);
    expect(new Set(reads.map((d) => `${d.outcome}/${d.org.remaining}`))).toEqual(new Set(['allowed/1000']));
    clock.advance(20);
    await limiter.check({ caps: [], org: org(1_000), quantity: 0 });
    expect(limiter.stats().roundTrips).toBe(2);
    // A leased request's state answers the next read without Redis.
    const leased = await limiter.check({ caps: [], org: org(1_000), quantity: 1 });
    const read = await limiter.check({ caps: [], org: org(1_000), quantity: 0 });
    expect(limiter.stats().roundTrips).toBe(3);
    expect(read.org.remaining).toBe(leased.org.remaining);
  });

  it('checkNow answers what this process holds (a live lease, a settled read) without Redis, as check would, and nothing else', async () => {
    const clock = new ManualClock();
    const limiter = await process({ clock, prefix: prefix() });
    // Nothing held yet: no answer, nothing taken, no Redis call.
    expect(limiter.checkNow({ caps: [], org: org(1_000), quantity: 1 })).toBeUndefined();
    expect(limiter.checkNow({ caps: [], org: org(1_000), quantity: 0 })).toBeUndefined();
    expect(limiter.stats()).toEqual({ decisions: 0, failOpen: 0, roundTrips: 0 });
    // The first leased request takes a lease of 2: the second comes from it, counting down as check's do.
    const first = await limiter.check({ caps: [], org: org(1_000), quantity: 1 });
    const second = limiter.checkNow({ caps: [], org: org(1_000), quantity: 1 });
    expect(second).toEqual({ outcome: 'allowed', org: { ...first.org, remaining: first.org.remaining - 1 }, retryAfterMs: 0 });
    expect(limiter.checkNow({ caps: [], org: org(1_000), quantity: 0 })?.org.remaining).toBe(first.org.remaining - 1);
    // The lease is spent: the next request needs Redis.
    expect(limiter.checkNow({ caps: [], org: org(1_000), quantity: 1 })).toBeUndefined();
    expect(limiter.stats()).toEqual({ decisions: 3, failOpen: 0, roundTrips: 1 });
    // Requests with a cap always take check's exact decision.
    expect(limiter.checkNow({ caps: [{ key: 'key:k1', perSecond: 10, burst: 10 }], org: org(1_000), quantity: 1 })).toBeUndefined();
    // A header-only read settled within the window answers; a pending one does not.
    clock.advance(20);
    const pending = limiter.check({ caps: [], org: org(1_000), quantity: 0 });
    expect(limiter.checkNow({ caps: [], org: org(1_000), quantity: 0 })).toBeUndefined();
    expect(limiter.checkNow({ caps: [], org: org(1_000), quantity: 0 })).toBeUndefined();
    const read = await pending;
    expect(limiter.checkNow({ caps: [], org: org(1_000), quantity: 0 })).toEqual(read);
    expect(limiter.stats().roundTrips).toBe(2);
  });

  it('what an expired lease left unspent goes back to the organization with the next lease (not counted as requests)', async () => {
    const clock = new ManualClock();
    const keyPrefix = prefix();
    // 100/s × 200 ms: leases of up to 20; Redis refills one request every 10 ms meanwhile.
    const limiter = await process({ clock, prefix: keyPrefix, leaseMs: 200 });
    const slow = (): LimitRule => ({ key: 'org:o1', perSecond: 100, burst: 100 });
    // Leases of 2, 4, then 8 of which 1 is spent: 7 left unspent when it expires.
    for (let i = 0; i < 7; i += 1) await limiter.check({ caps: [], org: slow(), quantity: 1 });
    clock.advance(200);
    await limiter.check({ caps: [], org: slow(), quantity: 1 });
    // 8 requests admitted, the last lease (of 1) spent: Redis must have counted 8, not 15.
    const exact = await process({ prefix: keyPrefix, leaseMs: 0 });
    const read = await exact.check({ caps: [], org: slow(), quantity: 0 });
    expect(read.org.remaining).toBeGreaterThanOrEqual(92);
    expect(limiter.stats().roundTrips).toBe(4);
  });

  it('requests with a per-key or per-IP cap take one exact decision each, and a rate too low for a lease of 2 is never leased', async () => {
    const limiter = await process({ prefix: prefix() });
    const cap: LimitRule = { key: 'key:k1', perSecond: 1_000, burst: 1_000 };
    for (let i = 0; i < 5; i += 1) await limiter.check({ caps: [cap], org: org(1_000), quantity: 1 });
    // 50/s × 20 ms = 1 request per lease: exact.
    for (let i = 0; i < 5; i += 1) await limiter.check({ caps: [], org: { key: 'org:o2', perSecond: 50, burst: 50 }, quantity: 1 });
    expect(limiter.stats().roundTrips).toBe(10);
  });

  it('concurrent requests share one renewal', async () => {
    const limiter = await process({ prefix: prefix() });
    const decisions = await Promise.all(Array.from({ length: 16 }, () => limiter.check({ caps: [], org: org(1_000), quantity: 1 })));
    expect(allowed(decisions)).toBe(16);
    // Sizes 2, 4, 8, 16: the waiters of one renewal take what it got, the rest renew once more.
    expect(limiter.stats().roundTrips).toBeLessThanOrEqual(4);
  });

  it('two processes never admit more than the burst plus one lease each; the denial is answered locally until the retry time', async () => {
    const shared = prefix();
    // 100/s with a 200 ms window: leases of up to 20 requests. Local time stands still; Redis's moves.
    const [a, b] = [await process({ prefix: shared, leaseMs: 200 }), await process({ prefix: shared, leaseMs: 200 })];
    const rule = org(100);
    const started = Date.now();
    const decisions: LimitDecision[] = [];
    for (let i = 0; i < 150; i += 1) {
      decisions.push(await a.check({ caps: [], org: rule, quantity: 1 }), await b.check({ caps: [], org: rule, quantity: 1 }));
    }
    const elapsedSeconds = (Date.now() - started) / 1000;
    const admitted = allowed(decisions);
    // Every lease was taken from Redis's GCRA before it was spent: no more than GCRA admits (burst + rate × time).
    expect(admitted).toBeLessThanOrEqual(100 + Math.ceil(100 * elapsedSeconds) + 1);
    // Unspent tokens of a lease are the only requests GCRA counted and the processes did not admit.
    expect(admitted).toBeGreaterThanOrEqual(100 - 2 * 20);
    const denied = decisions.filter((d) => d.outcome === 'org-exceeded');
    expect(denied.length).toBe(300 - admitted);
    expect(denied.every((d) => d.retryAfterMs > 0 && d.org.remaining === 0)).toBe(true);
    // Denials are cached until the retry time on the local clock, which stands still: few Redis calls after the first denial.
    expect(a.stats().roundTrips + b.stats().roundTrips).toBeLessThan(30);
  });

  it('over its rate, an organization is denied locally until a quarter of the largest lease is free, not asked again per request', async () => {
    const clock = new ManualClock();
    const limiter = await process({ prefix: prefix(), clock });
    // 1,000/s × 20 ms: leases of up to 20; over the rate the next one waits for 5 requests (1 ms each).
    const rule = org(1_000);
    let denial: LimitDecision | undefined;
    for (let i = 0; i < 3_000 && !denial; i += 1) {
      const decision = await limiter.check({ caps: [], org: rule, quantity: 1 });
      if (decision.outcome === 'org-exceeded') denial = decision;
    }
    expect(denial?.retryAfterMs).toBeGreaterThanOrEqual(5);
    const roundTrips = limiter.stats().roundTrips;
    clock.advance(denial!.retryAfterMs - 1);
    expect((await limiter.check({ caps: [], org: rule, quantity: 1 })).outcome).toBe('org-exceeded');
    expect(limiter.stats().roundTrips).toBe(roundTrips);
  });

  it('a lease expires after its window: what it still holds is dropped and the next request renews', async () => {
    const clock = new ManualClock();
    const limiter = await process({ prefix: prefix(), clock });
    const rule = org(1_000);
    for (let i = 0; i < 7; i += 1) await limiter.check({ caps: [], org: rule, quantity: 1 });
    // Leases of 2, 4 and 8: 7 spent, 7 held.
    expect(limiter.stats().roundTrips).toBe(3);
    await limiter.check({ caps: [], org: rule, quantity: 1 });
    expect(limiter.stats().roundTrips).toBe(3);
    clock.advance(20);
    expect((await limiter.check({ caps: [], org: rule, quantity: 1 })).outcome).toBe('allowed');
    expect(limiter.stats().roundTrips).toBe(4);
  });

  it('Redis unreachable: every lease-answered request is allowed, counted and logged as a fail-open decision', async () => {
    const limiter = await process({ prefix: prefix(), url: 'redis://127.0.0.1:1' });
    const decisions = await Promise.all(Array.from({ length: 5 }, () => limiter.check({ caps: [], org: org(1_000), quantity: 1 })));
    expect(decisions.map((d) => d.outcome)).toEqual(['allowed', 'allowed', 'allowed', 'allowed', 'allowed']);
    expect(limiter.stats().failOpen).toBe(5);
  });
});
