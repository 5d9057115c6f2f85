import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError, ManualClock } from '../core/index.js';
import type { AccessRequest, Principal } from '../identity/index.js';
import { KEY_RECHECK_MS, KeyRecheck } from './key-recheck.js';
import type { RequestPipeline } from './request-pipeline.js';

const ACCESS: AccessRequest = { network: 'mainnet', scope: 'data', origin: undefined, clientIp: '127.0.0.1' };

/** The authenticate stage of a pipeline whose key is refused while `refused.now`. */
function pipelineRefusing(refused: { now: boolean }): { pipeline: RequestPipeline; checks: () => number } {
  let checks = 0;
  const authenticateKey = (): Principal => {
    checks += 1;
    if (refused.now) throw new ApiError('API_KEY_DISABLED');
    return {} as Principal;
  };
  // Only authenticateKey is used by KeyRecheck.
  return { pipeline: { authenticateKey } as unknown as RequestPipeline, checks: () => checks };
}

describe('KeyRecheck.watch', () => {
  beforeEach(() => { vi.useFakeTimers(); });
  afterEach(() => { vi.useRealTimers(); });

  it('checks once KEY_RECHECK_MS have passed on the clock, not a millisecond before', async () => {
    const clock = new ManualClock();
    const { pipeline, checks } = pipelineRefusing({ now: false });
    const unwatch = new KeyRecheck(pipeline, 'svc_pat_key', ACCESS).watch(clock, () => undefined);
    clock.advance(KEY_RECHECK_MS - 1);
    await vi.advanceTimersByTimeAsync(KEY_RECHECK_MS * 3);
    expect(checks()).toBe(0);
    clock.advance(1);
    await vi.advanceTimersByTimeAsync(KEY_RECHECK_MS);
    expect(checks()).toBe(1);
    unwatch();
  });

  it('hands the first refusal over once and stops checking', async () => {
    const clock = new ManualClock();
    const refusal = { now: true };
    const { pipeline, checks } = pipelineRefusing(refusal);
    const refused: unknown[] = [];
    new KeyRecheck(pipeline, 'svc_pat_key', ACCESS).watch(clock, (error) => refused.push(error));
    for (let step = 0; step < 3; step += 1) {
      clock.advance(KEY_RECHECK_MS);
      await vi.advanceTimersByTimeAsync(KEY_RECHECK_MS);
    }
    expect(refused).toEqual([expect.objectContaining({ code: 'API_KEY_DISABLED' })]);
    expect(checks()).toBe(1);
  });

  it('a check that cannot decide (database down, the per-IP lookup budget spent, a bug) ends nothing; the next refusal of the key does', async () => {
    const clock = new ManualClock();
    const failures: unknown[] = [
      new ApiError('DATABASE_UNAVAILABLE'), new ApiError('RATE_LIMIT_EXCEEDED'), new Error('connection reset'), new ApiError('API_KEY_EXPIRED'),
    ];
    let checks = 0;
    const authenticateKey = (): Principal => {
      throw failures[checks++];
    };
    const refused: unknown[] = [];
    new KeyRecheck({ authenticateKey } as unknown as RequestPipeline, 'svc_pat_key', ACCESS).watch(clock, (error) => refused.push(error));
    for (let step = 0; step < 5; step += 1) {
      clock.advance(KEY_RECHECK_MS);
      await vi.advanceTimersByTimeAsync(KEY_RECHECK_MS);
    }
    expect({ checks, refused }).toEqual({ checks: 4, refused: [expect.objectContaining({ code: 'API_KEY_EXPIRED' })] });
  });

  it('a call admitted without a key (Envoy decided) is never refused', async () => {
    const clock = new ManualClock();
    const { pipeline, checks } = pipelineRefusing({ now: true });
    const refused: unknown[] = [];
    const unwatch = new KeyRecheck(pipeline, undefined, ACCESS).watch(clock, (error) => refused.push(error));
    clock.advance(KEY_RECHECK_MS);
    await vi.advanceTimersByTimeAsync(KEY_RECHECK_MS);
    expect({ refused, checks: checks() }).toEqual({ refused: [], checks: 0 });
    unwatch();
  });
});
