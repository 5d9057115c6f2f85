import { describe, expect, it } from 'vitest';
import { UpstreamError } from './errors.js';
import { backoffDelay, withRetries, type RetryEnv, type RetryPolicy } from './retry.js';

const policy: RetryPolicy = { deadlineMs: 1000, attemptTimeoutMs: 300, retries: 2, baseDelayMs: 50, maxDelayMs: 500 };

function fakeEnv(random = 0.5) {
  let now = 0;
  const sleeps: number[] = [];
  const env: RetryEnv = { now: () => now, random: () => random, sleep: async (ms) => { sleeps.push(ms); now += ms; } };
  return { env, sleeps, advance: (ms: number) => { now += ms; } };
}

const unavailable = () => new UpstreamError('unavailable', 'u', 'op', 'down');

describe('withRetries', () => {
  it('retries idempotent reads on unavailable, with jittered backoff, up to the retry bound', async () => {
    const { env, sleeps } = fakeEnv();
    let attempts = 0;
    await expect(withRetries(policy, env, true, async () => { attempts += 1; throw unavailable(); })).rejects.toThrow('down');
    expect(attempts).toBe(3);
    expect(sleeps).toEqual([25, 50]);
  });

  it('does not retry non-idempotent calls', async () => {
    const { env } = fakeEnv();
    let attempts = 0;
    await expect(withRetries(policy, env, false, async () => { attempts += 1; throw unavailable(); })).rejects.toThrow();
    expect(attempts).toBe(1);
  });

  it('does not retry answers such as not_found or bad responses', async () => {
    const { env } = fakeEnv();
    for (const kind of ['not_found', 'bad_response', 'invalid_argument'] as const) {
      let attempts = 0;
      await expect(withRetries(policy, env, true, async () => { attempts += 1; throw new UpstreamError(kind, 'u', 'op', kind); })).rejects.toThrow(kind);
      expect(attempts).toBe(1);
    }
  });

  it('gives each attempt at most what is left of the deadline and stops when the budget is spent', async () => {
    const { env, advance } = fakeEnv(0);
    const timeouts: number[] = [];
    await expect(withRetries({ ...policy, retries: 10 }, env, true, async (timeoutMs) => {
      timeouts.push(timeoutMs); advance(timeoutMs);
      throw new UpstreamError('timeout', 'u', 'op', 'slow');
    })).rejects.toThrow('slow');
    expect(timeouts).toEqual([300, 300, 300, 100]);
  });

  it('waits at least the upstream\'s Retry-After before the next attempt', async () => {
    const { env, sleeps } = fakeEnv();
    let attempts = 0;
    await expect(withRetries({ ...policy, deadlineMs: 10_000 }, env, true, async () => {
      attempts += 1;
      if (attempts < 2) throw new UpstreamError('unavailable', 'u', 'op', 'down', { retryAfterMs: 400 });
      return 'ok';
    })).resolves.toBe('ok');
    expect(sleeps).toEqual([400]);
  });

  it('never outlives the request\'s deadline, even when its own budget is longer', async () => {
    const { env, advance } = fakeEnv(0);
    const timeouts: number[] = [];
    await expect(withRetries({ ...policy, retries: 10, deadlineAt: 450 }, env, true, async (timeoutMs) => {
      timeouts.push(timeoutMs); advance(timeoutMs);
      throw new UpstreamError('timeout', 'u', 'op', 'slow');
    })).rejects.toThrow('slow');
    expect(timeouts).toEqual([300, 150]);
  });

  it('returns the first success', async () => {
    const { env } = fakeEnv();
    let attempts = 0;
    await expect(withRetries(policy, env, true, async () => { attempts += 1; if (attempts < 2) throw unavailable(); return 'ok'; })).resolves.toBe('ok');
  });

  it('backoff is full jitter under an exponential ceiling', () => {
    expect(backoffDelay(0, policy, () => 0.999)).toBe(49);
    expect(backoffDelay(3, policy, () => 0.999)).toBe(399);
    expect(backoffDelay(10, policy, () => 0.999)).toBe(499);
    expect(backoffDelay(2, policy, () => 0)).toBe(0);
  });
});
