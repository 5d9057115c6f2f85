import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../core/index.js';
import { startRedis } from '../../../test/support/processes.js';
import { LEASE_TTL_MS, MemoryStreamLease, RedisStreamLease, type StreamLease } from './stream-lease.js';

/** A lease, and how to make it lapse as an outage longer than its TTL does. */
interface Subject {
  lease: StreamLease;
  lapse(streamId: string): Promise<void>;
}

let redis: Awaited<ReturnType<typeof startRedis>>;
let admin: Redis;
const opened: StreamLease[] = [];
beforeAll(async () => {
  redis = await startRedis();
  admin = new Redis(redis.url);
});
afterAll(async () => {
  await Promise.all(opened.map((lease) => lease.close()));
  admin.disconnect();
  await redis.stop();
});

const implementations: [string, () => Promise<Subject>][] = [
  ['memory', async () => {
    const clock = new ManualClock();
    return { lease: new MemoryStreamLease(clock), lapse: async () => clock.advance(LEASE_TTL_MS + 1) };
  }],
  ['redis', async () => {
    const lease = await RedisStreamLease.connect(redis.url, 'test:warp:');
    opened.push(lease);
    // Redis expires the key by its own clock; deleting it is the same state, without waiting.
    return { lease, lapse: async (streamId) => void (await admin.del(`test:warp:lease:{${streamId}}`)) };
  }],
];

let streams = 0;
describe.each(implementations)('StreamLease contract (%s)', (_name, open) => {
  it('one holder at a time: a second token is refused until the holder releases', async () => {
    const { lease } = await open();
    const stream = `str_${++streams}`;
    expect(await lease.acquire(stream, 'a')).toBe(true);
    expect(await lease.acquire(stream, 'b')).toBe(false);
    expect(await lease.renew(stream, 'b')).toBe(false);
    await lease.release(stream, 'a');
    expect(await lease.acquire(stream, 'b')).toBe(true);
  });

  it('a lease that lapsed with nobody taking it is renewed by its holder, and then holds against others', async () => {
    const { lease, lapse } = await open();
    const stream = `str_${++streams}`;
    expect(await lease.acquire(stream, 'a')).toBe(true);
    await lapse(stream);
    expect(await lease.renew(stream, 'a')).toBe(true);
    expect(await lease.acquire(stream, 'b')).toBe(false);
  });

  it('a lease that lapsed and was taken by another connection is not renewed', async () => {
    const { lease, lapse } = await open();
    const stream = `str_${++streams}`;
    expect(await lease.acquire(stream, 'a')).toBe(true);
    await lapse(stream);
    expect(await lease.acquire(stream, 'b')).toBe(true);
    expect(await lease.renew(stream, 'a')).toBe(false);
    expect(await lease.renew(stream, 'b')).toBe(true);
  });
});
