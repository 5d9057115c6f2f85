import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../core/index.js';
import { MemoryStreamLog } from './stream-log.memory.js';
import { RedisStreamLog } from './stream-log.redis.js';
import { BUFFER_MAX_AGE_MS, BUFFER_MAX_EVENTS, type StreamLog } from './stream-log.js';

const REDIS_URL = 'redis://127.0.0.1:6379';
const logs: StreamLog[] = [];

const implementations: [string, (clock: ManualClock) => Promise<StreamLog>][] = [
  ['memory', async (clock) => new MemoryStreamLog(clock)],
  ['redis', async (clock) => RedisStreamLog.connect({ url: REDIS_URL, clock, keyPrefix: `test:warp:${randomBytes(6).toString('hex')}:` })],
];

/** Redis itself, for the tests that look at the keys. */
const redis = new Redis(REDIS_URL, { lazyConnect: true });

afterAll(async () => {
  await Promise.all(logs.map((log) => log.close()));
  redis.disconnect();
});

/** A Redis log under a prefix of its own. */
async function redisLog(clock = new ManualClock()): Promise<{ log: RedisStreamLog; prefix: string }> {
  const prefix = `test:warp:${randomBytes(6).toString('hex')}:`;
  const log = await RedisStreamLog.connect({ url: REDIS_URL, clock, keyPrefix: prefix });
  logs.push(log);
  return { log, prefix };
}

const events = (n: number, from = 0) => Array.from({ length: n }, (_, i) => ({ kind: 'event' as const, data: { n: from + i } }));
const numbers = (entries: { data: unknown }[]) => entries.map((entry) => (entry.data as { n: number }).n);

describe.each(implementations)('StreamLog contract (%s)', (_name, open) => {
  let clock: ManualClock;
  let log: StreamLog;
  let stream: string;
  beforeEach(async () => {
    clock = new ManualClock();
    log = await open(clock);
    logs.push(log);
    stream = `str_${randomBytes(4).toString('hex')}`;
  });

  it('ids grow monotonically, also within one millisecond and when the clock stands still', async () => {
    const first = await log.append(stream, events(3));
    const second = await log.append(stream, events(2, 3));
    const ms = String(clock.now());
    expect([...first, ...second]).toEqual([`${ms}-0`, `${ms}-1`, `${ms}-2`, `${ms}-3`, `${ms}-4`]);
  });

  it('hands out each event once; unacked events are pending until acked, acked ones never again', async () => {
    await log.append(stream, events(5));
    const handed = await log.readNew(stream, 3);
    expect(numbers(handed)).toEqual([0, 1, 2]);
    expect(numbers(await log.readNew(stream, 10))).toEqual([3, 4]);
    expect(await log.readNew(stream, 10)).toEqual([]);
    await log.ack(stream, [handed[0]!.id, handed[2]!.id]);
    expect(numbers(await log.readPending(stream, undefined, 10))).toEqual([1, 3, 4]);
    expect(numbers(await log.readPending(stream, handed[1]!.id, 10))).toEqual([3, 4]);
    await log.ackThrough(stream, handed[2]!.id);
    expect(numbers(await log.readPending(stream, undefined, 10))).toEqual([3, 4]);
  });

  it('ackThrough also passes over events never handed out (a Last-Event-ID from an earlier connection), never back over acked ones', async () => {
    const ids = await log.append(stream, events(5));
    await log.ackThrough(stream, ids[2]!);
    expect(numbers(await log.readNew(stream, 10))).toEqual([3, 4]);
    await log.ack(stream, [ids[3]!, ids[4]!]);
    await log.ackThrough(stream, ids[0]!);
    expect(await log.readNew(stream, 10)).toEqual([]);
    expect(await log.readPending(stream, undefined, 10)).toEqual([]);
  });

  it('ackThrough with an id from the future does not skip events appended later', async () => {
    await log.append(stream, events(2));
    await log.ackThrough(stream, '999999999999999-0');
    clock.advance(1);
    await log.append(stream, events(1, 2));
    expect(numbers(await log.readNew(stream, 10))).toEqual([2]);
  });

  it('discard (live mode) drops pending and unread events; later events still arrive', async () => {
    await log.append(stream, events(4));
    await log.readNew(stream, 2);
    await log.discard(stream);
    expect(await log.readPending(stream, undefined, 10)).toEqual([]);
    expect(await log.readNew(stream, 10)).toEqual([]);
    clock.advance(1);
    await log.append(stream, events(1, 4));
    expect(numbers(await log.readNew(stream, 10))).toEqual([4]);
  });

  it(`keeps exactly the last ${BUFFER_MAX_EVENTS} events of a disconnected stream`, async () => {
    for (let batch = 0; batch < 5; batch += 1) {
      await log.append(stream, events(500, batch * 500));
      clock.advance(1);
    }
    const buffered = [];
    for (let page = await log.readNew(stream, 700); page.length > 0; page = await log.readNew(stream, 700)) buffered.push(...page);
    expect(buffered).toHaveLength(BUFFER_MAX_EVENTS);
    expect(numbers(buffered)[0]).toBe(500);
    expect(numbers(buffered).at(-1)).toBe(2_499);
  });

  it('keeps events for exactly 30 minutes on the injected clock, pending ones included', async () => {
    await log.append(stream, events(1, 0));
    clock.advance(1);
    await log.append(stream, events(1, 1));
    await log.readNew(stream, 1);
    clock.advance(BUFFER_MAX_AGE_MS - 1);
    // Event 0 is now exactly 30 minutes old: still buffered (pending), event 1 unread.
    expect(numbers(await log.readPending(stream, undefined, 10))).toEqual([0]);
    clock.advance(1);
    expect(await log.readPending(stream, undefined, 10)).toEqual([]);
    expect(numbers(await log.readNew(stream, 10))).toEqual([1]);
    clock.advance(BUFFER_MAX_AGE_MS + 1);
    await log.append(stream, events(1, 2));
    expect(await log.readPending(stream, undefined, 10)).toEqual([]);
    expect(numbers(await log.readNew(stream, 10))).toEqual([2]);
  });

  it('appends a checkpoint once: a re-spliced checkpoint at or below the last one is skipped', async () => {
    expect(await log.append(stream, events(2), 10n)).toHaveLength(2);
    expect(await log.append(stream, events(2, 2), 10n)).toEqual([]);
    expect(await log.append(stream, events(1, 4), 9n)).toEqual([]);
    expect(await log.append(stream, events(1, 5), 11n)).toHaveLength(1);
    expect(numbers(await log.readNew(stream, 10))).toEqual([0, 1, 5]);
  });

  it('guards checkpoints per chain: another chain (a wiped network starting again from 0) is appended, and guarded from then on', async () => {
    expect(await log.append(stream, events(1), 941n, 'chain-a')).toHaveLength(1);
    expect(await log.append(stream, events(1, 1), 940n, 'chain-a')).toEqual([]);
    expect(await log.append(stream, events(1, 2), 2n, 'chain-b')).toHaveLength(1);
    expect(await log.append(stream, events(1, 3), 2n, 'chain-b')).toEqual([]);
    expect(await log.append(stream, events(1, 4), 3n, 'chain-b')).toHaveLength(1);
    expect(numbers(await log.readNew(stream, 10))).toEqual([0, 2, 4]);
  });

  it('tells listeners which stream was appended to', async () => {
    const seen: string[] = [];
    const stop = log.onAppend((id) => seen.push(id));
    await log.append(stream, events(1));
    await expect.poll(() => seen).toEqual([stream]);
    stop();
  });

  it('remove forgets a deleted stream: its events, its delivery state and its checkpoint guard; other streams keep theirs', async () => {
    const other = `${stream}_other`;
    await log.append(stream, events(3), 5n, 'chain-a');
    await log.append(other, events(2), 5n, 'chain-a');
    await log.readNew(stream, 1);
    await log.readNew(other, 1);
    const logged = async () => {
      const ids: string[] = [];
      for await (const page of log.loggedStreams()) ids.push(...page);
      return ids.sort();
    };
    expect(await logged()).toEqual([stream, other].sort());
    await log.remove([stream]);
    expect(await logged()).toEqual([other]);
    expect(await log.readPending(stream, undefined, 10)).toEqual([]);
    expect(await log.readNew(stream, 10)).toEqual([]);
    expect(await log.append(stream, events(1), 5n, 'chain-a')).toHaveLength(1);
    expect(numbers(await log.readPending(other, undefined, 10))).toEqual([0]);
    expect(numbers(await log.readNew(other, 10))).toEqual([1]);
    expect(await log.append(other, events(1), 5n, 'chain-a')).toEqual([]);
  });
});

describe('RedisStreamLog: a deleted stream\'s keys', () => {
  it('are gone after remove, and only theirs', async () => {
    const { log, prefix } = await redisLog();
    for (const stream of ['str_deleted', 'str_kept']) {
      await log.append(stream, events(2), 7n, 'chain-a');
      await log.readNew(stream, 1);
    }
    const keys = async () => (await redis.keys(`${prefix}*`)).sort();
    expect(await keys()).toEqual([`${prefix}log:{str_deleted}`, `${prefix}log:{str_deleted}:checkpoint`, `${prefix}log:{str_kept}`, `${prefix}log:{str_kept}:checkpoint`]);
    await log.remove(['str_deleted']);
    expect(await keys()).toEqual([`${prefix}log:{str_kept}`, `${prefix}log:{str_kept}:checkpoint`]);
    expect(await redis.xlen(`${prefix}log:{str_kept}`)).toBe(2);
    expect(await redis.xpending(`${prefix}log:{str_kept}`, 'delivery')).toEqual([1, expect.any(String), expect.any(String), [['client', '1']]]);
    expect(await redis.get(`${prefix}log:{str_kept}:checkpoint`)).toBe('chain-a|7');
  });
});

describe('RedisStreamLog: a guard written before guards named their chain', () => {
  it('counts as the same chain: at or below it is skipped, above it appended (then guarded with its chain)', async () => {
    const { log, prefix } = await redisLog();
    await redis.set(`${prefix}log:{str_legacy}:checkpoint`, '100');
    expect(await log.append('str_legacy', events(1), 100n, 'chain-a')).toEqual([]);
    expect(await log.append('str_legacy', events(1, 1), 101n, 'chain-a')).toHaveLength(1);
    expect(await redis.get(`${prefix}log:{str_legacy}:checkpoint`)).toBe('chain-a|101');
  });
});

describe('RedisStreamLog across processes', () => {
  /** Two processes' logs on one Redis. */
  async function twoProcesses(): Promise<{ a: RedisStreamLog; b: RedisStreamLog; prefix: string }> {
    const clock = new ManualClock();
    const { log: a, prefix } = await redisLog(clock);
    const b = await RedisStreamLog.connect({ url: REDIS_URL, clock, keyPrefix: prefix });
    logs.push(b);
    return { a, b, prefix };
  }

  it('a second connection (another streams process) sees the same log and pending list', async () => {
    const { a, b } = await twoProcesses();
    await a.append('s', events(3));
    const handed = await a.readNew('s', 2);
    await a.ack('s', [handed[0]!.id]);
    await a.close();
    expect(numbers(await b.readPending('s', undefined, 10))).toEqual([1]);
    expect(numbers(await b.readNew('s', 10))).toEqual([2]);
  });

  it('a log another process removed (its stream deleted) reads as empty, and is not created again by the read', async () => {
    const { a, b, prefix } = await twoProcesses();
    await a.append('s', events(3));
    expect(numbers(await b.readNew('s', 1))).toEqual([0]);
    await a.remove(['s']);
    expect(await b.readNew('s', 10)).toEqual([]);
    expect(await b.readPending('s', undefined, 10)).toEqual([]);
    expect(await redis.keys(`${prefix}*`)).toEqual([]);
  });
});
