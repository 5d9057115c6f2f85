import type { Clock, Logger, Metrics } from '../core/index.js';
import type { Database } from '../db/index.js';
import type { UpstreamSet } from '../upstream/index.js';
import { MemoryStreamLease, RedisStreamLease, type StreamLease } from './delivery/stream-lease.js';
import { CheckpointIngest } from './ingest/checkpoint-ingest.js';
import type { MatchConsumer } from './ingest/match-consumer.js';
import { removeDeletedStreamLogs } from './log/deleted-stream-logs.js';
import { MemoryStreamLog } from './log/stream-log.memory.js';
import { RedisStreamLog } from './log/stream-log.redis.js';
import type { StreamLog } from './log/stream-log.js';

export interface WarpRuntime {
  log: StreamLog;
  lease: StreamLease;
  ingests: readonly CheckpointIngest[];
  close(): Promise<void>;
}

export interface WarpRuntimeOptions {
  /** Redis Streams and a Redis lease when set (every production `streams` process); in-process otherwise (`suigw dev`). */
  redisUrl: string | undefined;
  database: Database;
  clock: Clock;
  logger: Logger;
  upstreams: UpstreamSet;
  /** Run one checkpoint ingest per network with an upstream. */
  ingest: boolean;
  /** Matched in the same pass as the streams (webhooks); handed to every ingest. */
  consumers?: readonly MatchConsumer[];
  keyPrefix?: string;
  /** The ingests report their progress here (suigw_warp_checkpoints_ingested_total, suigw_warp_ingest_lag_seconds). */
  metrics?: Pick<Metrics, 'warpCheckpointsIngested' | 'warpIngestLag'>;
}

/** The log, the lease and the ingests of one process (`suigw streams`, or `suigw dev` in-process). */
export async function startWarpRuntime(options: WarpRuntimeOptions): Promise<WarpRuntime> {
  const { clock, logger } = options;
  const log: StreamLog = options.redisUrl
    ? await RedisStreamLog.connect({ url: options.redisUrl, clock, ...(options.keyPrefix ? { keyPrefix: options.keyPrefix } : {}) })
    : new MemoryStreamLog(clock);
  const lease: StreamLease = options.redisUrl ? await RedisStreamLease.connect(options.redisUrl, options.keyPrefix) : new MemoryStreamLease(clock);
  const ingests: CheckpointIngest[] = [];
  if (options.ingest) {
    // Before the ingests: the logs a deletion left behind while no ingest ran.
    const removed = await removeDeletedStreamLogs(log, options.database);
    if (removed > 0) logger.info({ removed }, 'deleted the logs of deleted streams');
    for (const [network, upstream] of options.upstreams) {
      const ingest = new CheckpointIngest({ network, upstream, database: options.database, log, clock, logger: logger.child({ module: 'warp-ingest', network }),
        ...(options.consumers ? { consumers: options.consumers } : {}), ...(options.metrics ? { instruments: options.metrics } : {}) });
      await ingest.start();
      ingests.push(ingest);
    }
  }
  return {
    log,
    lease,
    ingests,
    async close() {
      await Promise.all(ingests.map((ingest) => ingest.stop()));
      await lease.close();
      await log.close();
    },
  };
}
