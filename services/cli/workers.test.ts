import { describe, expect, it } from 'vitest';
import { workerCount, WorkersRefused } from './workers.js';

const shared = { databaseUrl: 'postgres://db/suigw', redisUrl: 'redis://cache' };

describe('workerCount: one per core only where the state is shared', () => {
  it('auto: the cores when the database (and Redis, for roles that limit) are shared; else 1', () => {
    expect(workerCount('gateway', { workers: 'auto', ...shared }, 8)).toBe(8);
    expect(workerCount('gateway', { workers: 'auto', ...shared, redisUrl: undefined }, 8)).toBe(1);
    expect(workerCount('ratelimit', { workers: 'auto', ...shared, databaseUrl: undefined }, 8)).toBe(1);
    // authz keeps no limiter state: the database alone suffices.
    expect(workerCount('authz', { workers: 'auto', ...shared, redisUrl: undefined }, 8)).toBe(8);
  });

  it('an explicit count is taken as is, and refused above 1 without the shared state', () => {
    expect(workerCount('grpc', { workers: 3, ...shared }, 2)).toBe(3);
    expect(workerCount('grpc', { workers: 1, databaseUrl: undefined, redisUrl: undefined }, 2)).toBe(1);
    expect(() => workerCount('grpc', { workers: 2, databaseUrl: undefined, redisUrl: undefined }, 2)).toThrow(
      new WorkersRefused('SUIGW_WORKERS=2 needs DATABASE_URL and REDIS_URL: without them each worker would keep its own limits and credits. Set DATABASE_URL and REDIS_URL, or SUIGW_WORKERS=1.'),
    );
    expect(() => workerCount('authz', { workers: 2, databaseUrl: undefined, redisUrl: undefined }, 2)).toThrow(/needs DATABASE_URL: without it each worker would keep its own database/);
  });
});
