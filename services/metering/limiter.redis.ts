import { Redis } from 'ioredis';
import type { Clock, Logger, Metrics } from '../core/index.js';
import { gcraParams } from './gcra.js';
import type { LimitCheck, LimitDecision, LimiterStats, LimitRule, RateLimiter } from './limiter.js';

/**
 * One decision = one atomic script (the semantics of `limiter.ts`): GCRA per key in
 * microseconds of Redis's own clock (`TIME`), so every gateway process sharing this Redis sees
 * one time line. KEYS: the caps, then the organization. ARGV: quantity, then per key its
 * emission interval and burst tolerance (µs). Returns {outcome, org remaining, org TAT ms,
 * retry-after ms}; outcome 0 allowed, 1 a cap denied, 2 the organization denied.
 * Numbers are written with %.0f: Lua's tostring would round a µs timestamp to 14 digits.
 */
const GCRA_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local quantity = tonumber(ARGV[1])
local function decide(i, qty)
  local interval = tonumber(ARGV[2 * i])
  local tolerance = tonumber(ARGV[2 * i + 1])
  local tat = tonumber(redis.call('GET', KEYS[i]) or '0')
  if tat < now then tat = now end
  local new_tat = tat + interval * qty
  local allow_at = new_tat - tolerance
  if qty > 0 and allow_at > now then
    return false, tat, math.max(0, math.floor((now + tolerance - tat) / interval)), allow_at - now
  end
  return true, new_tat, math.max(0, math.floor((now + tolerance - new_tat) / interval)), 0
end
local function store(i, tat)
  local ttl = math.ceil((tat - now) / 1000) + 1
  redis.call('SET', KEYS[i], string.format('%.0f', tat), 'PX', ttl)
end
local org = #KEYS
local cap_tats = {}
for i = 1, org - 1 do
  local ok, tat, _, wait = decide(i, quantity)
  if not ok then
    local _, org_tat, org_remaining = decide(org, 0)
    return {1, org_remaining, math.floor(org_tat / 1000), math.ceil(wait / 1000)}
  end
  cap_tats[i] = tat
end
for i = 1, org - 1 do store(i, cap_tats[i]) end
local ok, tat, remaining, wait = decide(org, quantity)
if not ok then
  return {2, remaining, math.floor(tat / 1000), math.ceil(wait / 1000)}
end
if quantity > 0 then store(org, tat) end
return {0, remaining, math.floor(tat / 1000), 0}
`;

interface ScriptedRedis extends Redis {
  gcraCheck(numberOfKeys: number, ...args: (string | number)[]): Promise<[number, number, number, number]>;
}

const OUTCOMES = ['allowed', 'cap-exceeded', 'org-exceeded'] as const;

export interface RedisRateLimiterOptions {
  url: string;
  logger: Logger;
  /** Only for the headers of a fail-open answer; decisions use Redis's clock. */
  clock: Clock;
  /** Prefix of every key (several deployments, or tests, may share one Redis). */
  keyPrefix?: string;
  /** A decision that takes longer fails open (SUIGW_RATE_LIMIT_TIMEOUT_MS; Envoy's ratelimit filter waits 20 ms). */
  timeoutMs?: number;
  /** Counts each decision taken without Redis (services/core/metrics.ts). */
  failures?: Metrics['limiterFailures'];
}

/**
 * The shared limiter for several gateway processes. When Redis cannot answer (down, or slower
 * than `timeoutMs`) the request is allowed — fail open, as Envoy's ratelimit filter does by
 * default — and the failure is logged (first one, then every 1000th) and counted in `stats()`:
 * Redis holds only rebuildable counters, and credits stay enforced by the ledger meanwhile.
 */
export class RedisRateLimiter implements RateLimiter {
  readonly #redis: ScriptedRedis;
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #prefix: string;
  #decisions = 0;
  #failOpen = 0;
  readonly #failures: Metrics['limiterFailures'] | undefined;

  constructor(options: RedisRateLimiterOptions) {
    this.#logger = options.logger;
    this.#clock = options.clock;
    this.#prefix = options.keyPrefix ?? 'suigw:rl:';
    this.#failures = options.failures;
    this.#redis = new Redis(options.url, {
      lazyConnect: true,
      // Never queue behind a dead connection: fail fast, and fail open.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: options.timeoutMs ?? 100,
      retryStrategy: (attempt) => Math.min(attempt * 100, 2_000),
    }) as ScriptedRedis;
    this.#redis.on('error', () => {
      // Connection errors surface through failed decisions (counted and logged there).
    });
    this.#redis.defineCommand('gcraCheck', { lua: GCRA_SCRIPT });
  }

  /** Connects once; a Redis that is down at start is retried in the background (fail open meanwhile). */
  async connect(): Promise<void> {
    try {
      await this.#redis.connect();
    } catch (error) {
      this.#logger.warn({ err: error }, 'rate limiter: Redis unreachable at start; allowing requests until it is back');
    }
  }

  async check(request: LimitCheck): Promise<LimitDecision> {
    this.#decisions += 1;
    const rules = [...request.caps, request.org];
    const args: (string | number)[] = [...rules.map((rule) => this.#prefix + rule.key), request.quantity];
    for (const rule of rules) args.push(...microseconds(rule));
    try {
      const [outcome, remaining, resetAtMs, retryAfterMs] = await this.#redis.gcraCheck(rules.length, ...args);
      return { outcome: OUTCOMES[outcome]!, org: { limit: request.org.perSecond, remaining, resetAtMs }, retryAfterMs };
    } catch (error) {
      return this.#allowWithoutRedis(request.org, error);
    }
  }

  stats(): LimiterStats {
    return { decisions: this.#decisions, failOpen: this.#failOpen };
  }

  async close(): Promise<void> {
    this.#redis.disconnect();
  }

  #allowWithoutRedis(org: LimitRule, error: unknown): LimitDecision {
    this.#failOpen += 1;
    this.#failures?.inc({ backend: 'redis', decision: 'allowed' });
    if (this.#failOpen % 1000 === 1) {
      this.#logger.warn({ err: error, failOpen: this.#failOpen }, 'rate limiter: Redis unavailable; request allowed (fail open)');
    }
    return { outcome: 'allowed', org: { limit: org.perSecond, remaining: org.burst, resetAtMs: this.#clock.now() }, retryAfterMs: 0 };
  }
}

function microseconds(rule: LimitRule): [number, number] {
  const params = gcraParams(rule.perSecond, rule.burst);
  return [Math.round(params.intervalMs * 1000), Math.round(params.toleranceMs * 1000)];
}
