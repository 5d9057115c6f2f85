import { randomBytes } from 'node:crypto';
import type { ManualClock } from '../../services/core/index.js';
import { MemoryStreamLease, RedisStreamLease, type StreamLease } from '../../services/streams/delivery/stream-lease.js';
import { MemoryStreamLog } from '../../services/streams/log/stream-log.memory.js';
import { RedisStreamLog } from '../../services/streams/log/stream-log.redis.js';
import type { StreamLog } from '../../services/streams/log/stream-log.js';

export const TEST_REDIS_URL = 'redis://127.0.0.1:6379';

/** A Warp log and lease on one engine, both on the test's injected clock. */
export interface WarpEngine {
  log: StreamLog;
  lease: StreamLease;
  close(): Promise<void>;
}

/**
 * The engines a delivery test runs on, for `describe.each`: the production one (Redis Streams and
 * a Redis lease, as every `suigw streams` process uses them) and the in-process one of `suigw dev`.
 * Each Redis engine gets its own key prefix, so test files never see each other's streams.
 */
export const WARP_ENGINES: [name: string, open: (clock: ManualClock) => Promise<WarpEngine>][] = [
  ['redis', async (clock) => {
    const keyPrefix = `test:warp:${randomBytes(6).toString('hex')}:`;
    const log = await RedisStreamLog.connect({ url: TEST_REDIS_URL, clock, keyPrefix });
    const lease = await RedisStreamLease.connect(TEST_REDIS_URL, keyPrefix);
    return { log, lease, close: async () => { await lease.close(); await log.close(); } };
  }],
  ['memory', async (clock) => {
    const log = new MemoryStreamLog(clock);
    const lease = new MemoryStreamLease(clock);
    return { log, lease, close: async () => { await lease.close(); await log.close(); } };
  }],
];
