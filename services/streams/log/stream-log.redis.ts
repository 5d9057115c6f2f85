import { EventEmitter } from 'node:events';
import { Redis } from 'ioredis';
import type { Clock } from '../../core/index.js';
import type { StreamType } from '../definitions/filters.js';
import { BUFFER_MAX_AGE_MS, BUFFER_MAX_EVENTS, compareIds, type AppendedEvent, type LogEntry, type StreamLog } from './stream-log.js';

/**
 * Appends and trims in one atomic step. The id's millisecond part is the injected clock's (never
 * below the stream's last id, so ids stay monotonic when two processes' clocks differ); the
 * trims are exact (no `~`): the spec's caps are 2,000 events and 30 minutes, not "about".
 * KEYS[1] stream, KEYS[2] its last appended checkpoint (`chain|sequence`); ARGV: now ms, max
 * events, max age ms, checkpoint ('' for none), its chain identifier, then one JSON payload per
 * event. A checkpoint at or below the last one of the same chain is skipped: a restarted ingest
 * re-splices without duplicates; one of another chain (a wiped network) is appended.
 * The delivery group starts at 0: events matched before the first connection are buffered too.
 */
const APPEND_SCRIPT = `
if ARGV[4] ~= '' then
  local stored = redis.call('GET', KEYS[2])
  if stored then
    local chain, cp = string.match(stored, '^(.*)|(%d+)$')
    -- A guard written before guards named their chain holds only the number: the same chain.
    if not cp then chain = ARGV[5]; cp = stored end
    if chain == ARGV[5] and tonumber(ARGV[4]) <= tonumber(cp) then return {} end
  end
  redis.call('SET', KEYS[2], ARGV[5] .. '|' .. ARGV[4])
end
local ok, err = pcall(redis.call, 'XGROUP', 'CREATE', KEYS[1], 'delivery', '0', 'MKSTREAM')
local now = tonumber(ARGV[1])
local ms = now
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
if #last > 0 then
  local last_ms = tonumber(string.match(last[1][1], '^(%d+)-'))
  if last_ms > ms then ms = last_ms end
end
local ids = {}
for i = 6, #ARGV do
  ids[#ids + 1] = redis.call('XADD', KEYS[1], string.format('%.0f-*', ms), 'e', ARGV[i])
end
redis.call('XTRIM', KEYS[1], 'MAXLEN', tonumber(ARGV[2]))
redis.call('XTRIM', KEYS[1], 'MINID', string.format('%.0f', now - tonumber(ARGV[3])))
return ids
`;

interface ScriptedRedis extends Redis {
  warpAppend(key: string, checkpointKey: string, ...args: (string | number)[]): Promise<string[]>;
}

type RawEntry = [string, string[] | null];
type ReadReply = [string, RawEntry[]][] | null;

const GROUP = 'delivery';
/** One active connection per stream (the lease), so one consumer per stream's group. */
const CONSUMER = 'client';

export interface RedisStreamLogOptions {
  url: string;
  clock: Clock;
  /** Namespaces the log keys and the notification channel (tests use one per file). */
  keyPrefix?: string;
}

/**
 * The production log: one Redis stream per Warp stream (XADD with exact MAXLEN/MINID trims),
 * one consumer group per stream whose pending list is the set of events handed out and not yet
 * acknowledged (XREADGROUP / XACK), and a pub/sub channel that wakes the delivering process.
 * Every `streams` process shares it, and it survives their restarts. See docs/streams.md.
 */
export class RedisStreamLog implements StreamLog {
  readonly #redis: ScriptedRedis;
  readonly #subscriber: Redis;
  readonly #clock: Clock;
  readonly #prefix: string;
  readonly #appended = new EventEmitter();
  readonly #groups = new Set<string>();

  private constructor(redis: ScriptedRedis, subscriber: Redis, clock: Clock, prefix: string) {
    this.#redis = redis;
    this.#subscriber = subscriber;
    this.#clock = clock;
    this.#prefix = prefix;
    this.#appended.setMaxListeners(0);
  }

  static async connect(options: RedisStreamLogOptions): Promise<RedisStreamLog> {
    const prefix = options.keyPrefix ?? 'suigw:warp:';
    const redis = new Redis(options.url, { lazyConnect: true, maxRetriesPerRequest: 2 }) as ScriptedRedis;
    redis.defineCommand('warpAppend', { numberOfKeys: 2, lua: APPEND_SCRIPT });
    const subscriber = new Redis(options.url, { lazyConnect: true });
    // ioredis reconnects by itself; without a listener each failed attempt of an outage is an
    // "Unhandled error event" stack trace on stderr. The outage shows in `/health` (`connected`).
    for (const client of [redis, subscriber]) client.on('error', () => {});
    await Promise.all([redis.connect(), subscriber.connect()]);
    const log = new RedisStreamLog(redis, subscriber, options.clock, prefix);
    await subscriber.subscribe(`${prefix}appended`);
    subscriber.on('message', (_channel: string, streamId: string) => log.#appended.emit('append', streamId));
    return log;
  }

  #key(streamId: string): string {
    return `${this.#prefix}log:{${streamId}}`;
  }

  async #ensureGroup(key: string): Promise<void> {
    if (this.#groups.has(key)) return;
    try {
      await this.#redis.xgroup('CREATE', key, GROUP, '0', 'MKSTREAM');
    } catch (error) {
      if (!String((error as Error).message).startsWith('BUSYGROUP')) throw error;
    }
    this.#groups.add(key);
  }

  async append(streamId: string, events: readonly AppendedEvent[], checkpoint?: bigint, chain = ''): Promise<string[]> {
    if (events.length === 0) return [];
    const payloads = events.map((event) => JSON.stringify({ k: event.kind, d: event.data }));
    const key = this.#key(streamId);
    const ids = await this.#redis.warpAppend(key, `${key}:checkpoint`, this.#clock.now(), BUFFER_MAX_EVENTS, BUFFER_MAX_AGE_MS,
      checkpoint === undefined ? '' : checkpoint.toString(), chain, ...payloads);
    if (ids.length > 0) await this.#redis.publish(`${this.#prefix}appended`, streamId);
    return ids;
  }

  /** Decodes entries, acknowledging (and skipping) those trimmed away or past the 30-minute cap. */
  async #decode(key: string, raw: RawEntry[]): Promise<LogEntry[]> {
    const oldest = this.#clock.now() - BUFFER_MAX_AGE_MS;
    const out: LogEntry[] = [];
    const expired: string[] = [];
    for (const [id, fields] of raw) {
      const at = Number(id.slice(0, id.indexOf('-')));
      if (fields === null || at < oldest) {
        expired.push(id);
        continue;
      }
      const payload = JSON.parse(fields[1]!) as { k: StreamType; d: unknown };
      out.push({ id, kind: payload.k, data: payload.d, at });
    }
    if (expired.length > 0) await this.#redis.xack(key, GROUP, ...expired);
    return out;
  }

  /**
   * XREADGROUP. A log removed meanwhile by another process (its stream deleted, the connection not
   * closed yet) has nothing to read; its group stays known here, so no read creates it again.
   */
  async #readGroup(key: string, count: number, from: string): Promise<RawEntry[]> {
    try {
      const reply = (await this.#redis.xreadgroup('GROUP', GROUP, CONSUMER, 'COUNT', count, 'STREAMS', key, from)) as ReadReply;
      return reply?.[0]?.[1] ?? [];
    } catch (error) {
      if (!String((error as Error).message).startsWith('NOGROUP')) throw error;
      return [];
    }
  }

  async readNew(streamId: string, count: number): Promise<LogEntry[]> {
    const key = this.#key(streamId);
    await this.#ensureGroup(key);
    for (;;) {
      const raw = await this.#readGroup(key, count, '>');
      if (raw.length === 0) return [];
      const entries = await this.#decode(key, raw);
      if (entries.length > 0) return entries;
    }
  }

  async readPending(streamId: string, after: string | undefined, count: number): Promise<LogEntry[]> {
    const key = this.#key(streamId);
    await this.#ensureGroup(key);
    let cursor = after ?? '0';
    for (;;) {
      const raw = await this.#readGroup(key, count, cursor);
      if (raw.length === 0) return [];
      const entries = await this.#decode(key, raw);
      if (entries.length > 0) return entries;
      cursor = raw[raw.length - 1]![0];
    }
  }

  async ack(streamId: string, ids: readonly string[]): Promise<void> {
    if (ids.length > 0) await this.#redis.xack(this.#key(streamId), GROUP, ...ids);
  }

  async ackThrough(streamId: string, id: string): Promise<number> {
    const key = this.#key(streamId);
    await this.#ensureGroup(key);
    let acknowledged = 0;
    for (;;) {
      const pending = (await this.#redis.xpending(key, GROUP, '-', id, 1_000)) as [string, ...unknown[]][];
      if (pending.length === 0) break;
      await this.#redis.xack(key, GROUP, ...pending.map((row) => row[0]));
      acknowledged += pending.length;
    }
    // Events up to `id` never handed out (a Last-Event-ID from an earlier process) are not new
    // either: the group's last delivered id moves up to `id`, never down (that would hand out
    // acknowledged events again). One connection per stream (the lease): no concurrent reader.
    // Never past the newest event: an id from the future (client input) would skip events to come.
    const [newest] = (await this.#redis.xrevrange(key, '+', '-', 'COUNT', 1)) as [string, unknown][];
    if (newest === undefined) return acknowledged;
    const through = compareIds(id, newest[0]) > 0 ? newest[0] : id;
    const lastDelivered = await this.#lastDeliveredId(key);
    if (lastDelivered === undefined || compareIds(through, lastDelivered) > 0) await this.#redis.xgroup('SETID', key, GROUP, through);
    return acknowledged;
  }

  async #lastDeliveredId(key: string): Promise<string | undefined> {
    const groups = (await this.#redis.xinfo('GROUPS', key)) as unknown[][];
    for (const fields of groups) {
      const info = new Map<unknown, unknown>();
      for (let i = 0; i + 1 < fields.length; i += 2) info.set(fields[i], fields[i + 1]);
      if (info.get('name') === GROUP) return info.get('last-delivered-id') as string;
    }
    return undefined;
  }

  async discard(streamId: string): Promise<void> {
    const key = this.#key(streamId);
    await this.#ensureGroup(key);
    await this.#redis.multi().xgroup('SETID', key, GROUP, '$').xgroup('DELCONSUMER', key, GROUP, CONSUMER).exec();
  }

  async remove(streamIds: readonly string[]): Promise<void> {
    if (streamIds.length === 0) return;
    // One DEL per stream: its two keys share a hash slot ({id}), two streams' keys need not.
    const removal = this.#redis.pipeline();
    for (const streamId of streamIds) {
      const key = this.#key(streamId);
      removal.del(key, `${key}:checkpoint`);
    }
    const replies = (await removal.exec()) ?? [];
    const failed = replies.find(([error]) => error !== null);
    if (failed) throw failed[0];
  }

  async *loggedStreams(): AsyncIterable<string[]> {
    const glob = `${this.#prefix.replace(/[*?[\]\\]/g, '\\$&')}log:{*`;
    for await (const keys of this.#redis.scanStream({ match: glob, count: 1_000 }) as AsyncIterable<string[]>) {
      const ids = new Set<string>();
      for (const key of keys) {
        const id = /^log:\{(.+)\}(?::checkpoint)?$/.exec(key.slice(this.#prefix.length))?.[1];
        if (id !== undefined) ids.add(id);
      }
      if (ids.size > 0) yield [...ids];
    }
  }

  onAppend(listener: (streamId: string) => void): () => void {
    this.#appended.on('append', listener);
    return () => this.#appended.off('append', listener);
  }

  connected(): boolean {
    return this.#redis.status === 'ready' && this.#subscriber.status === 'ready';
  }

  async close(): Promise<void> {
    this.#appended.removeAllListeners();
    this.#subscriber.disconnect();
    await this.#redis.quit().catch(() => this.#redis.disconnect());
  }
}
