import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, createLogger } from '../../core/index.js';
import { createOrganization } from '../../identity/index.js';
import { COIN_TYPES } from '../../simnet/index.js';
import { useIngestSimnet } from '../../../test/support/ingest-simnet.js';
import { createStream, deleteStream } from '../definitions/store.js';
import { RedisStreamLog } from '../log/stream-log.redis.js';
import { startWarpRuntime } from '../warp-runtime.js';
import { CheckpointIngest } from './checkpoint-ingest.js';

const REDIS_URL = 'redis://127.0.0.1:6379';

/**
 * A deleted stream's log is not appended to again, so its trims never run again: its buffered
 * events (up to 2,000) and its checkpoint guard used to stay in Redis for good. The ingest, the
 * log's only writer, deletes them once it has matched a checkpoint without the stream.
 */
describe('CheckpointIngest: a deleted stream', () => {
  const chain = useIngestSimnet({ seed: 'streams-ingest-delete', transactionsPerCheckpoint: 4 });
  let log: RedisStreamLog;
  let redis: Redis;
  let owner: { organizationId: string; network: 'mainnet' };
  const clock = new ManualClock();
  const prefix = `test:warp:${randomBytes(6).toString('hex')}:`;
  const keys = async (under = prefix) => (await redis.keys(`${under}log:*`)).sort();
  const keysOf = (id: string, under = prefix) => [`${under}log:{${id}}`, `${under}log:{${id}}:checkpoint`];
  // Every transaction pays gas in SUI: such streams match every checkpoint.
  const suiStream = async (name: string) => (await createStream(chain.db.database, clock, { ...owner, limit: 10, name, type: 'coin', filters: { coinTypes: [COIN_TYPES.SUI] } })).stream.id;

  beforeAll(async () => {
    log = await RedisStreamLog.connect({ url: REDIS_URL, clock, keyPrefix: prefix });
    redis = new Redis(REDIS_URL);
    const { organization } = await createOrganization(chain.db.database.db, clock, { name: 'o', tier: 'enterprise', projects: [{ name: 'p', network: 'mainnet' }] });
    owner = { organizationId: organization.id, network: 'mainnet' };
  });
  afterAll(async () => {
    redis.disconnect();
    await log.close();
  });

  it('has its log and checkpoint guard deleted from Redis; the other streams keep theirs', async () => {
    const deleted = await suiStream('deleted');
    const kept = await suiStream('kept');

    const seen: bigint[] = [];
    // No periodic reload: the definitions version read before each checkpoint brings the deletion in.
    const ingest = new CheckpointIngest({ network: 'mainnet', upstream: chain.upstream, database: chain.db.database, log, clock, logger: createLogger('silent'), refreshMs: 3_600_000, onCheckpoint: (seq) => seen.push(seq) });
    await ingest.start();
    try {
      await expect.poll(async () => {
        await chain.simnet.produceCheckpoint();
        return keys();
      }, { timeout: 10_000 }).toEqual([...keysOf(deleted), ...keysOf(kept)].sort());
      const keptEvents = await redis.xlen(`${prefix}log:{${kept}}`);

      await deleteStream(chain.db.database, clock, owner, deleted);
      await chain.simnet.produceCheckpoint();
      const after = chain.simnet.ledger.latestCheckpoint().sequenceNumber;
      await expect.poll(() => seen.at(-1), { timeout: 10_000 }).toBe(after);

      expect(await keys()).toEqual(keysOf(kept).sort());
      expect(await redis.xlen(`${prefix}log:{${kept}}`)).toBeGreaterThan(keptEvents);
      expect(await redis.get(`${prefix}log:{${kept}}:checkpoint`)).toMatch(new RegExp(`\\|${after}$`));
    } finally {
      await ingest.stop();
    }
  });

  it('deleted while no ingest ran (or before deletions deleted logs): its log is deleted when a streams process starts', async () => {
    const under = `test:warp:${randomBytes(6).toString('hex')}:`;
    const earlier = await RedisStreamLog.connect({ url: REDIS_URL, clock, keyPrefix: under });
    const deleted = await suiStream('deleted-earlier');
    const kept = await suiStream('kept-earlier');
    try {
      for (const id of [deleted, kept, 'str_unknown']) await earlier.append(id, [{ kind: 'coin', data: {} }], 3n, 'chain-a');
    } finally {
      await earlier.close();
    }
    await deleteStream(chain.db.database, clock, owner, deleted);

    const runtime = await startWarpRuntime({ redisUrl: REDIS_URL, keyPrefix: under, database: chain.db.database, clock, logger: createLogger('silent'), upstreams: new Map(), ingest: true });
    await runtime.close();

    expect(await keys(under)).toEqual(keysOf(kept, under).sort());
  });
});
