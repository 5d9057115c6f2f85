import { Metrics, type Clock, type Config, type Logger } from '../core/index.js';
import type { Database } from '../db/index.js';
import { Authenticator } from '../identity/index.js';
import { createMetering, type Metering } from '../metering/index.js';
import { RequestPipeline } from './request-pipeline.js';

export interface PipelineRuntime {
  config: Config;
  database: Database;
  clock: Clock;
  logger: Logger;
  /** The process's instruments (key cache lookups, credits, 429s); none recorded when absent. */
  metrics?: Metrics;
}

export interface OpenPipelineOptions {
  /**
   * `all` (default): every stage. `access`: the authenticate stage only (Envoy's ext_authz,
   * which neither limits nor charges: the ratelimit service and the answering service do).
   */
  stages?: 'all' | 'access';
  /** An authenticator the caller owns (started and stopped by it), instead of one opened here (tests). */
  authenticator?: Authenticator;
}

export interface OpenedPipeline {
  pipeline: RequestPipeline;
  authenticator: Authenticator;
  /** The limiter, ledger and usage recorder behind the meter (undefined for `access`). */
  metering: Metering | undefined;
  /** Flushes usage and releases the limiter and the key cache. Call after the server stopped answering. */
  close(): Promise<void>;
}

/**
 * The one place every role (`dev`, `gateway`, `grpc`, `streams`, `authz`, `ratelimit`) builds
 * its pipeline from the configuration: the key cache (SUIGW_KEY_CACHE_TTL_MS, LISTEN/NOTIFY
 * invalidation), the limiter (Redis with REDIS_URL, in memory otherwise), the credit ledger and
 * usage recorder, and the meter only when SUIGW_METERING is on, so each setting means the
 * same in every role.
 */
export async function openPipeline(runtime: PipelineRuntime, options: OpenPipelineOptions = {}): Promise<OpenedPipeline> {
  const { config, database, clock, logger } = runtime;
  const metrics = runtime.metrics ?? new Metrics({ defaultMetrics: false });
  const owned = options.authenticator === undefined;
  const authenticator = options.authenticator ?? new Authenticator({
    database, clock, ttlMs: config.keyCacheTtlMs, unknownKeyLookupsPerMinute: config.unknownKeyLookupsPerMinute, logger, cacheLookups: metrics.keyCacheLookups,
  });
  if (owned) await authenticator.start();
  const metering = options.stages === 'access' ? undefined : await createMetering({ config, database, clock, logger, metrics });
  const opened = assemblePipeline({ authenticator, metering, metered: config.metering.enabled });
  return {
    ...opened,
    async close() {
      await opened.close();
      if (owned) await authenticator.stop();
    },
  };
}

/**
 * A pipeline over parts built elsewhere: tests that give two "processes" one shared limiter, as
 * Redis does in production. `close` closes the metering, not the authenticator.
 */
export function assemblePipeline(parts: { authenticator: Authenticator; metering: Metering | undefined; metered?: boolean }): OpenedPipeline {
  const { authenticator, metering } = parts;
  const meter = parts.metered === false ? undefined : metering?.meter;
  return {
    pipeline: new RequestPipeline({ authenticator, meter }),
    authenticator,
    metering,
    async close() {
      await metering?.close();
    },
  };
}
