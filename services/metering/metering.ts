import type { Clock, Config, Logger, Metrics } from '../core/index.js';
import type { Database } from '../db/index.js';
import { CreditLedger } from './credits.js';
import type { RateLimiter } from './limiter.js';
import { MemoryRateLimiter } from './limiter.memory.js';
import { RedisRateLimiter } from './limiter.redis.js';
import { Meter } from './meter.js';
import { UsageRecorder } from './usage.js';

export interface Metering {
  meter: Meter;
  limiter: RateLimiter;
  ledger: CreditLedger;
  usage: UsageRecorder;
  /** Flushes usage, then releases the limiter. Call after the server stopped answering. */
  close(): Promise<void>;
}

export interface MeteringDeps {
  config: Pick<Config, 'redisUrl' | 'metering'>;
  database: Database;
  clock: Clock;
  logger: Logger;
  /** Credits, 429s and the Redis limiter's fail-open decisions are recorded here when given. */
  metrics?: Pick<Metrics, 'creditsConsumed' | 'creditsRemaining' | 'rateLimitRejections' | 'limiterFailures'>;
}

/** The metering of one gateway process: Redis limiter when `REDIS_URL` is set, in-memory otherwise. */
export async function createMetering(deps: MeteringDeps): Promise<Metering> {
  const { config, database, clock } = deps;
  const logger = deps.logger.child({ module: 'metering' });
  let limiter: RateLimiter;
  if (config.redisUrl !== undefined) {
    const redis = new RedisRateLimiter({
      url: config.redisUrl,
      logger,
      clock,
      keyPrefix: config.metering.redisKeyPrefix,
      timeoutMs: config.metering.rateLimitTimeoutMs,
      leaseMs: config.metering.rateLimitLeaseMs,
      ...(deps.metrics ? { failures: deps.metrics.limiterFailures } : {}),
    });
    await redis.connect();
    limiter = redis;
  } else {
    limiter = new MemoryRateLimiter(clock);
  }
  const ledger = new CreditLedger({ db: database.db, clock, logger });
  const usage = new UsageRecorder({
    db: database.db,
    clock,
    logger,
    flushIntervalMs: config.metering.usageFlushMs,
    onFlushed: (written) => ledger.reconcile(written),
  });
  usage.start();
  const meter = new Meter({ limiter, ledger, usage, ...(deps.metrics ? { instruments: deps.metrics } : {}) });
  return {
    meter,
    limiter,
    ledger,
    usage,
    async close() {
      await usage.close();
      await limiter.close();
    },
  };
}
