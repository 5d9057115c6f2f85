import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Clock } from '../../core/index.js';

/** How long a lease outlives its holder's last renewal: a killed process frees its streams after this. */
export const LEASE_TTL_MS = 10_000;
export const LEASE_RENEW_MS = 3_000;

/**
 * The spec's "one active connection per stream" across every process: a connection holds its
 * stream's lease (token-guarded, so only the holder renews or releases it).
 */
export interface StreamLease {
  acquire(streamId: string, token: string): Promise<boolean>;
  /**
   * Extends the holder's lease; false when another connection holds the stream. A lease that
   * lapsed with nobody taking it (Redis unreachable for longer than the TTL) is taken again: the
   * connection is still the stream's only one.
   */
  renew(streamId: string, token: string): Promise<boolean>;
  release(streamId: string, token: string): Promise<void>;
  /** Whether the lease's store answers now (Redis connected; always, in memory). */
  connected(): boolean;
  close(): Promise<void>;
}

export function newLeaseToken(): string {
  return randomBytes(12).toString('hex');
}

/** One process: the lease is a map entry that expires on the injected clock. */
export class MemoryStreamLease implements StreamLease {
  readonly #clock: Clock;
  readonly #held = new Map<string, { token: string; until: number }>();

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  async acquire(streamId: string, token: string): Promise<boolean> {
    const held = this.#held.get(streamId);
    if (held && held.until > this.#clock.now() && held.token !== token) return false;
    this.#held.set(streamId, { token, until: this.#clock.now() + LEASE_TTL_MS });
    return true;
  }

  async renew(streamId: string, token: string): Promise<boolean> {
    return this.acquire(streamId, token);
  }

  async release(streamId: string, token: string): Promise<void> {
    if (this.#held.get(streamId)?.token === token) this.#held.delete(streamId);
  }

  connected(): boolean {
    return true;
  }

  async close(): Promise<void> {
    this.#held.clear();
  }
}

const RENEW = `local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if holder == false then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end
return 0`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

interface LeaseRedis extends Redis {
  leaseRenew(key: string, token: string, ttl: number): Promise<number>;
  leaseRelease(key: string, token: string): Promise<number>;
}

/** Every `streams` process: `SET NX PX` in Redis, renewed while the connection lives (Redis's clock). */
export class RedisStreamLease implements StreamLease {
  readonly #redis: LeaseRedis;
  readonly #prefix: string;

  private constructor(redis: LeaseRedis, prefix: string) {
    this.#redis = redis;
    this.#prefix = prefix;
  }

  static async connect(url: string, keyPrefix = 'suigw:warp:'): Promise<RedisStreamLease> {
    const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2 }) as LeaseRedis;
    redis.defineCommand('leaseRenew', { numberOfKeys: 1, lua: RENEW });
    redis.defineCommand('leaseRelease', { numberOfKeys: 1, lua: RELEASE });
    // Reconnects by itself; an outage shows in `/health` (`connected`), not as stack traces.
    redis.on('error', () => {});
    await redis.connect();
    return new RedisStreamLease(redis, keyPrefix);
  }

  #key(streamId: string): string {
    return `${this.#prefix}lease:{${streamId}}`;
  }

  async acquire(streamId: string, token: string): Promise<boolean> {
    return (await this.#redis.set(this.#key(streamId), token, 'PX', LEASE_TTL_MS, 'NX')) === 'OK';
  }

  async renew(streamId: string, token: string): Promise<boolean> {
    return (await this.#redis.leaseRenew(this.#key(streamId), token, LEASE_TTL_MS)) === 1;
  }

  async release(streamId: string, token: string): Promise<void> {
    await this.#redis.leaseRelease(this.#key(streamId), token);
  }

  connected(): boolean {
    return this.#redis.status === 'ready';
  }

  async close(): Promise<void> {
    await this.#redis.quit().catch(() => this.#redis.disconnect());
  }
}
